// Package demo is `shakectl demo`: a narrated tour of real command lines
// against simulators started in the process.
package demo
