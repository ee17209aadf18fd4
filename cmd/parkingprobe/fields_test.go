package parkingprobe_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/parkingprobe"
)

// Every {Field} placeholder the probe's option errors use has a flag here,
// so a usage error never reaches the user as a Go field path. The probe's
// sources are read as text: a new placeholder fails this test until the
// command names its flag.
func TestEveryProbeOptionFieldHasAFlag(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("../../probe/*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("probe sources: %v", err)
	}
	seen := 0
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(src), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "//") {
				continue
			}
			for rest := line; ; {
				i := strings.Index(rest, "{")
				if i < 0 {
					break
				}
				j := strings.Index(rest[i:], "}")
				if j < 0 {
					break
				}
				field := rest[i+1 : i+j]
				rest = rest[i+j:]
				if field == "" || field[0] < 'A' || field[0] > 'Z' || strings.ContainsAny(field, " \t\"(),:") {
					continue
				}
				seen++
				if parkingprobe.FlagName(field) == "" {
					t.Errorf("%s: {%s} has no flag in probeFlagName", filepath.Base(path), field)
				}
			}
		}
	}
	if seen < 20 {
		t.Errorf("found only %d placeholders in probe's sources; is the scan still right?", seen)
	}
}
