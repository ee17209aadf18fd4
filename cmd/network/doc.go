// Package network is `shakectl network`: one file per verb.
package network
