// Package clitest holds what the command tree's tests share: a runner that
// executes a whole command line the way main does and checks that no
// secret was printed, the stub registry of canned answers for it
// (Stubs, over internal/httpstub) with the fake cloud's fixtures, golden
// files, and helpers that start the simulators (SimCluster for behaviour,
// the serving commands).
package clitest
