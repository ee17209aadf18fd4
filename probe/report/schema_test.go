package report

import (
	"encoding/json"
	"regexp"
	"testing"
)

// TestSchemaFieldAgreesWithCheck: the JSON Schema's "schema" pattern and
// Check accept the same versions, so a script validating reports and merge
// agree on what a v1 report is.
func TestSchemaFieldAgreesWithCheck(t *testing.T) {
	var doc struct {
		Properties struct {
			Schema struct {
				Pattern string `json:"pattern"`
			} `json:"schema"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(ReportJSONSchema(), &doc); err != nil {
		t.Fatal(err)
	}
	re, err := regexp.Compile(doc.Properties.Schema.Pattern)
	if err != nil || doc.Properties.Schema.Pattern == "" {
		t.Fatalf("pattern %q: %v", doc.Properties.Schema.Pattern, err)
	}
	for _, s := range []string{SchemaVersion, SchemaVersion + ".0", SchemaVersion + ".12", "", "parking-probe/v2", "parking-probe/v1x", "other/v1", "parking-probe/v11"} {
		if got, want := re.MatchString(s), CheckSchemaVersion(s) == nil; got != want {
			t.Errorf("%q: schema pattern accepts=%v, Check accepts=%v", s, got, want)
		}
	}
}
