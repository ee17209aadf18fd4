// Package artifact is `shakectl artifact`: one file per verb.
package artifact
