//go:build !(linux || darwin || dragonfly || freebsd || netbsd || openbsd)

package termecho

// Off does nothing here. A Windows console echoes typed-ahead input only
// when a read with echo asks for it, so there is no gap before
// term.ReadPassword's own read to close.
func Off(int) error { return nil }
