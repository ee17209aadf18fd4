// Package schema names the version of parking-probe's JSON report, so
// scripts and "parking-probe merge" can refuse a report they do not know.
package schema

import (
	"fmt"
	"strconv"
	"strings"
)

// Name is the report's schema family; Current the version this build
// writes, as the report's "schema" field spells it.
const (
	Name    = "parking-probe"
	Major   = 1
	Current = "parking-probe/v1"
)

// VersionError is a report whose schema this build cannot read.
type VersionError struct{ Schema, Reason string }

func (e *VersionError) Error() string {
	return fmt.Sprintf("report schema %q: %s (this shakectl reads %s)", e.Schema, e.Reason, Current)
}

// Check accepts "parking-probe/vMAJOR" or "parking-probe/vMAJOR.MINOR" with
// the major version this build knows; a minor version only adds optional
// fields, so any is accepted. An empty string is refused: reports written
// before the field existed carry none and must be re-run or tagged.
func Check(s string) error {
	name, ver, ok := strings.Cut(s, "/v")
	if !ok || name != Name {
		return &VersionError{Schema: s, Reason: "not a parking-probe report schema"}
	}
	majorStr, _, _ := strings.Cut(ver, ".")
	major, err := strconv.Atoi(majorStr)
	if err != nil || major < 0 {
		return &VersionError{Schema: s, Reason: "malformed version"}
	}
	if major != Major {
		return &VersionError{Schema: s, Reason: fmt.Sprintf("unknown major version %d; use a shakectl that writes it", major)}
	}
	return nil
}
