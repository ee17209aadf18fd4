//go:build !unix

package probe

// raiseOpenFileLimit cannot adjust limits on this platform; it says nothing.
func raiseOpenFileLimit(need uint64) (uint64, string) { return 0, "" }
