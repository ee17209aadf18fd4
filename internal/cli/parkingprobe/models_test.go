package parkingprobe_test

import (
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/internal/cli/clitest"
	"github.com/shakenfist/shakectl/internal/cli/cmdutil"
	"github.com/shakenfist/shakectl/internal/cli/root"
)

// parking-probe against `shakectl sim router --model main` (substrate main
// 86e138f6, which never parks): the full pool is refused at once with the
// same 503 a parking router sends when the budget is spent, and the probe
// must fail the parked check and exit 3 rather than pass.
func TestParkingProbeAgainstSimMainExits3(t *testing.T) {
	urls, _, _, stop := clitest.StartSimRouterCmd(t, "--model", "main", "--workers", "1", "--actor-idle", "1h")
	defer stop()
	f, out, errOut := probeTestFactory(t, t.Context())
	code := root.Run(f, []string{"parking-probe", "--target", urls["router"], "--statusz-url", urls["statusz"],
		"--requests", "20", "--actors", "4", "--shed-max", "30s"})
	if code != cmdutil.ExitChecksFailed {
		t.Fatalf("exit %d, want 3; stdout:\n%s\nstderr %q", code, out, errOut)
	}
	if !strings.Contains(out.String(), "✗ parked") || !strings.Contains(out.String(), "did not park") {
		t.Errorf("report does not fail parked saying the router did not park:\n%s", out)
	}
	if !strings.Contains(errOut.String(), "parked") {
		t.Errorf("stderr %q does not name the failed check", errOut)
	}
}

// --help says what --plot draws now: percentiles per outcome with the
// budget, and answers and in-flight per 100 ms, not latency over send time.
func TestParkingProbeHelpDescribesPlots(t *testing.T) {
	f, out, _ := probeTestFactory(t, t.Context())
	if code := root.Run(f, []string{"parking-probe", "--help"}); code != cmdutil.ExitOK {
		t.Fatalf("exit %d", code)
	}
	help := out.String()
	for _, want := range []string{"latency by percentile", "park budget", "per 100 ms"} {
		if !strings.Contains(help, want) {
			t.Errorf("--help lacks %q", want)
		}
	}
	if strings.Contains(help, "latency over time") {
		t.Error("--help still says --plot draws latency over time")
	}
}
