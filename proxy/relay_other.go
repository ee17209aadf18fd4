//go:build !unix

package proxy

import "os"

// terminalDelivered: without process groups, every signal is relayed.
func terminalDelivered(os.Signal) bool { return false }
