// Package clusteroperation is `shakectl cluster-operation`: following the
// cluster operations a 2026 Shakenfist server starts for asynchronous work
// (a network delete answers 202 with one).
package clusteroperation
