package k8sjob

import (
	"os/exec"
	"strings"
	"testing"
)

// TestBinaryLinksNoTestOnlyModule: k8s.io/api (and its apimachinery),
// sigs.k8s.io/yaml and the JSON Schema validator are test-only; shakectl
// itself must not link them (start-up time and size, BENCHMARKS.md row 2).
// (The OTel Prometheus exporter and prometheus/client_golang are linked:
// `sim router` serves /metrics through them as the real router does;
// issue 23 retired the start-up ratio that kept them out.)
func TestBinaryLinksNoTestOnlyModule(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command(goCmd, "list", "-deps", "github.com/shakenfist/shakectl").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 20 || !strings.Contains(string(out), "github.com/shakenfist/shakectl/internal/k8sjob\n") {
		t.Fatalf("go list -deps gave %d packages without this one: not the binary's list", len(deps))
	}
	for _, p := range deps {
		for _, banned := range []string{"k8s.io/", "sigs.k8s.io/", "github.com/santhosh-tekuri/"} {
			if strings.HasPrefix(p, banned) {
				t.Errorf("shakectl links %s, a dependency only its tests may have", p)
			}
		}
	}
}
