//go:build race

package parkingprobe_test

const raceEnabled = true
