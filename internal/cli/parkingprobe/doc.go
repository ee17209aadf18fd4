// Package parkingprobe is `shakectl parking-probe`: the load run itself
// (run.go), merging saved reports (merge.go), a Kubernetes Job of shards
// (job.go), and drawing --plot files through shakectl-plot (plot.go).
package parkingprobe
