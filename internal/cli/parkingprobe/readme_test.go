package parkingprobe_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/internal/cli/clitest"
	"github.com/shakenfist/shakectl/internal/cli/cmdutil"
	"github.com/shakenfist/shakectl/internal/cli/root"
)

// readmeProbeExample is the README's first parking-probe command line (in
// "Load-testing request parking"), its continuation lines joined.
func readmeProbeExample(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(raw)
	i := strings.Index(s, "## Load-testing request parking")
	if i < 0 {
		t.Fatal("README has no Load-testing section")
	}
	s = s[i:]
	j := strings.Index(s, "\nshakectl parking-probe ")
	if j < 0 {
		t.Fatal("no parking-probe example in the section")
	}
	var line strings.Builder
	for _, l := range strings.Split(s[j+1:], "\n") {
		l = strings.TrimSpace(l)
		cont := strings.HasSuffix(l, `\`)
		line.WriteString(strings.TrimSuffix(l, `\`) + " ")
		if !cont {
			break
		}
	}
	args := strings.Fields(line.String())
	if strings.ContainsAny(line.String(), `'"$`) {
		t.Fatalf("the example needs a shell: %s", line.String())
	}
	return args[1:] // without "shakectl"
}

// Issue 28, item 12: the README's first probe example (then --actors 200
// against sim router's 100 actors) got 52% not_found and still printed
// "all checks passed". Run as the README says, against the README's
// simulator with its defaults, every answer comes from the parking path and
// reached_parking passes. (shed_fast, a p99 under 250ms, is the machine's
// to keep: two cores running the router and 2,000 connections at once may
// not, so this test does not judge it.)
func TestREADMEFirstProbeExampleReachesParking(t *testing.T) {
	args := readmeProbeExample(t)
	urls, _, _, stop := clitest.StartSimRouterCmd(t)
	defer stop()
	for i, a := range args {
		switch a {
		case "http://127.0.0.1:8080":
			args[i] = urls["router"]
		case "http://127.0.0.1:9090/metrics":
			args[i] = urls["metrics"]
		case "http://127.0.0.1:4040/statusz":
			args[i] = urls["statusz"]
		}
	}
	f, out, errOut := probeTestFactory(t, context.Background())
	code := root.Run(f, append(args, "-o", "json"))
	if code != cmdutil.ExitOK && code != cmdutil.ExitChecksFailed {
		t.Fatalf("shakectl %s: exit %d, stderr %s", strings.Join(args, " "), code, errOut)
	}
	var rep struct {
		Outcomes map[string]struct {
			Count int `json:"count"`
		} `json:"outcomes"`
		Checks []struct {
			Name   string `json:"name"`
			Status string `json:"status"`
			Detail string `json:"detail"`
		} `json:"checks"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if n := rep.Outcomes["not_found"].Count; n > 0 {
		t.Errorf("the README's example gets %d not_found answers: its --actors exceeds the simulator's", n)
	}
	for _, c := range rep.Checks {
		if c.Status == "failed" && c.Name != "shed_fast" {
			t.Errorf("check %s failed: %s", c.Name, c.Detail)
		}
	}
}
