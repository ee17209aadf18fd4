//go:build !unix

package main

import "os"

// peakRSSKiB is unknown where the process's usage has no ru_maxrss
// (Windows): the bench then reports 0.
func peakRSSKiB(*os.ProcessState) int64 { return 0 }
