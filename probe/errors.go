// Package probe is the parking-probe engine: load shapes, classification of
// answers, latency histograms, checks and reports.
package probe

import "errors"

// ErrChecksFailed is returned (wrapped) when the probe ran and one or more of
// its checks failed; the command maps it to exit code 3.
var ErrChecksFailed = errors.New("one or more checks failed")
