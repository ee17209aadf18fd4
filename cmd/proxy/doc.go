// Package proxy is `shakectl proxy` and `shakectl wrap`: the
// transient-capacity retry for clients other than shakectl, in front of the
// configured API URL. The behaviour is the library's, package
// github.com/shakenfist/shakectl/proxy; these commands only map flags and
// the configuration to its options, and its results to exit codes.
package proxy
