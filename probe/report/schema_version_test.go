package report

import (
	"errors"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	for _, ok := range []string{SchemaVersion, "parking-probe/v1.3"} {
		if err := CheckSchemaVersion(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "parking-probe/v2", "parking-probe/vx", "other/v1", "parking-probe", "parking-probe/v-1"} {
		err := CheckSchemaVersion(bad)
		var ve *SchemaVersionError
		if !errors.As(err, &ve) || !strings.Contains(err.Error(), SchemaVersion) {
			t.Errorf("%q: got %v, want a SchemaVersionError naming %s", bad, err, SchemaVersion)
		}
	}
	if err := CheckSchemaVersion("parking-probe/v2"); !strings.Contains(err.Error(), "unknown major version 2") {
		t.Errorf("v2: %v", err)
	}
}
