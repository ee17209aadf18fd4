package report

import (
	"bytes"
	_ "embed"
)

//go:embed report.v1.schema.json
var reportV1 []byte

// ReportSchemaFile is the name of the JSON Schema (draft 2020-12) of the
// SchemaVersion report, as kept in the repository next to this file.
const ReportSchemaFile = "report.v1.schema.json"

// ReportJSONSchema returns the JSON Schema of the SchemaVersion report, for
// scripts that validate reports and for the tests that hold the report to
// it. It is strict: a field the schema does not name fails validation, so
// a change of the report is a change of this file (see its description).
func ReportJSONSchema() []byte { return bytes.Clone(reportV1) }
