//go:build !race

package parkingprobe_test

const raceEnabled = false
