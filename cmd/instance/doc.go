// Package instance is `shakectl instance`: one file per verb.
package instance
