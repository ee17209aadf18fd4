// Package blob is `shakectl blob`: one file per verb.
package blob
