// Package startupfloor holds hello, an empty Go program: bench/cli-startup.sh
// times it next to `shakectl version` and `gh --version` only to show what
// an exec costs on this machine that day. It is no target: the start-up
// ratio against an empty program (and against programs that merely link
// shakectl's libraries, which lived here once) was retired in favour of
// comparing shakectl with another real CLI, Debian's gh.
package startupfloor
