// Package config is `shakectl config`: commands that show the resolved
// configuration. The configuration itself is resolved in cmdutil.
package config
