//go:build !unix

package probe

// raiseOpenFileLimit cannot adjust limits on this platform; it says nothing.
func raiseOpenFileLimit(want, need uint64) (uint64, string) { return 0, "" }
