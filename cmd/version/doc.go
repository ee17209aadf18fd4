// Package version is `shakectl version`.
package version
