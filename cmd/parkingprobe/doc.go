// Package parkingprobe is `shakectl parking-probe`: the load run itself
// (run.go), merging saved reports (merge.go), a Kubernetes Job of shards
// (job.go), and writing --plot pages with probe/htmlplot (plot.go).
package parkingprobe
