package parkingprobe_test

import (
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/root"
	"github.com/shakenfist/shakectl/probe/report"
)

// parking-probe against `shakectl sim router --model main` (substrate main
// 86e138f6, which never parks): the full pool is refused at once with the
// same 503 a parking router sends when the budget is spent, and the probe
// must find parking disabled and exit 3 rather than pass.
func TestParkingProbeAgainstSimMainExits3(t *testing.T) {
	t.Parallel()
	urls, _, _, stop := clitest.StartSimRouterCmd(t, "--model", "main", "--workers", "1", "--actor-idle", "1h")
	defer stop()
	f, out, errOut := probeTestFactory(t, t.Context())
	code := root.Run(f, []string{"parking-probe", "--target", urls["router"], "--statusz-url", urls["statusz"],
		"--requests", "20", "--actors", "4", "--shed-max", "30s"})
	if code != cmdutil.ExitChecksFailed {
		t.Fatalf("exit %d, want 3; stdout:\n%s\nstderr %q", code, out, errOut)
	}
	if !strings.Contains(out.String(), "✗ reached_parking") || !strings.Contains(out.String(), "parking is disabled on the router") {
		t.Errorf("report does not fail reached_parking saying parking is disabled:\n%s", out)
	}
	if !strings.Contains(errOut.String(), "reached_parking") {
		t.Errorf("stderr %q does not name the failed check", errOut)
	}
}

// --help says what --plot writes (an HTML page that loads nothing, with
// latency over time and by percentile, and parked against the lot), and
// its outcome and check tables are the report's vocabulary, word for word.
func TestParkingProbeHelpDescribesPlotAndVocabulary(t *testing.T) {
	t.Parallel()
	f, out, _ := probeTestFactory(t, t.Context())
	if code := root.Run(f, []string{"parking-probe", "--help"}); code != cmdutil.ExitOK {
		t.Fatalf("exit %d", code)
	}
	help := out.String()
	for _, want := range []string{"--plot FILE.html", "self-contained HTML page", "fetches nothing",
		"latency over time and by percentile", "park budget", "max_parked",
		"OUTCOMES (every request lands in exactly one)\n" + report.OutcomeHelp(),
		"CHECKS (exit 3 when one fails)\n" + report.CheckHelp()} {
		if !strings.Contains(help, want) {
			t.Errorf("--help lacks %q", want)
		}
	}
	for _, gone := range []string{"shakectl-plot", "SHAKECTL_PLOT", ".png", ".svg"} {
		if strings.Contains(help, gone) {
			t.Errorf("--help still mentions %q", gone)
		}
	}
}
