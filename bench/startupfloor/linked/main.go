// Command linked links every package shakectl links (through cmd: the
// probe with its plots, both simulators and their metrics) and does nothing.
package main

import _ "github.com/shakenfist/shakectl/cmd"

func main() {}
