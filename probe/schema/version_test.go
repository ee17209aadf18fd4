package schema

import (
	"errors"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	for _, ok := range []string{Current, "parking-probe/v1.3"} {
		if err := Check(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "parking-probe/v2", "parking-probe/vx", "other/v1", "parking-probe", "parking-probe/v-1"} {
		err := Check(bad)
		var ve *VersionError
		if !errors.As(err, &ve) || !strings.Contains(err.Error(), Current) {
			t.Errorf("%q: got %v, want a VersionError naming %s", bad, err, Current)
		}
	}
	if err := Check("parking-probe/v2"); !strings.Contains(err.Error(), "unknown major version 2") {
		t.Errorf("v2: %v", err)
	}
}
