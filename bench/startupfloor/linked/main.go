// Command linked links every package shakectl links (through the command tree: the
// probe, both simulators and their metrics, the HTML plot) and does nothing.
package main

import _ "github.com/shakenfist/shakectl/internal/cli/root"

func main() {}
