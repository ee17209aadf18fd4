// Package api is `shakectl api`: a raw call to any Shakenfist API path with
// the same authentication, retries and exit codes as the typed commands.
package api
