// Package clitest holds what the command tree's tests share: a fake
// Shakenfist API on loopback, a runner that executes a whole command line
// the way main does and checks that no secret was printed, golden files, and
// helpers that start the simulators as commands.
package clitest
