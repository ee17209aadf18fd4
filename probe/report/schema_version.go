package report

import (
	"fmt"
	"strconv"
	"strings"
)

// SchemaName is the report's schema family; SchemaVersion the version this
// build writes, as the report's "schema" field spells it. They live with
// the report type and its JSON Schema (report.v1.schema.json) because the
// three change together: a field added to Report is a minor version here
// and a property in the schema file.
const (
	SchemaName    = "parking-probe"
	SchemaMajor   = 1
	SchemaVersion = "parking-probe/v1"
)

// SchemaVersionError is a report whose schema this build cannot read.
type SchemaVersionError struct{ Schema, Reason string }

func (e *SchemaVersionError) Error() string {
	return fmt.Sprintf("report schema %q: %s (this shakectl reads %s)", e.Schema, e.Reason, SchemaVersion)
}

// CheckSchemaVersion accepts "parking-probe/vMAJOR" or
// "parking-probe/vMAJOR.MINOR" with the major version this build knows; a
// minor version only adds optional fields, so any is accepted. An empty
// string is refused: reports written before the field existed carry none
// and must be re-run or tagged.
func CheckSchemaVersion(s string) error {
	name, ver, ok := strings.Cut(s, "/v")
	if !ok || name != SchemaName {
		return &SchemaVersionError{Schema: s, Reason: "not a parking-probe report schema"}
	}
	majorStr, _, _ := strings.Cut(ver, ".")
	major, err := strconv.Atoi(majorStr)
	if err != nil || major < 0 {
		return &SchemaVersionError{Schema: s, Reason: "malformed version"}
	}
	if major != SchemaMajor {
		return &SchemaVersionError{Schema: s, Reason: fmt.Sprintf("unknown major version %d; use a shakectl that writes it", major)}
	}
	return nil
}
