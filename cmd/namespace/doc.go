// Package namespace is `shakectl namespace`: one file per verb.
package namespace
