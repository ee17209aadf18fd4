// Package context is `shakectl context`: named sets of API URL, namespace and
// key in the config file, and which one is current.
package context
