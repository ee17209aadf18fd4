// Package claim is `shakectl namespace claim`: a namespace's capacity
// claims (shakenfist 2026 external_api/auth.py), one file per verb.
package claim
