// Package sim is `shakectl sim`: the simulated Shakenfist cluster (cluster.go)
// and atenet router (router.go) as commands.
package sim
