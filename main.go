// Command shakectl is a command-line client for the Shakenfist cloud API and a
// load tester for the atenet router's request parking.
package main

import (
	"os"

	"github.com/shakenfist/shakectl/cmd/root"
)

func main() {
	os.Exit(root.Main())
}
