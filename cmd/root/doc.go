// Package root builds the whole command tree and runs one command line:
// Main, called by the repository's main.go, and Run, which tests call with a
// Factory of their own.
package root
