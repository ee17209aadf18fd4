// Package label is `shakectl label`: one file per verb.
package label
