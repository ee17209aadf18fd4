// Package node is `shakectl node`: one file per verb.
package node
