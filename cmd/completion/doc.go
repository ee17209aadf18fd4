// Package completion is `shakectl completion SHELL`: Cobra's generated
// completion scripts, with help on loading each shell's.
package completion
