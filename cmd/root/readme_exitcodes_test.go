package root_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/internal/httpstub"
)

// readmeExitCodes is the README's exit-code table: code → meaning.
func readmeExitCodes(t *testing.T) map[int]string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(raw), "\n## Exit codes\n")
	if !ok {
		t.Fatal(`README.md has no "## Exit codes" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	rows := map[int]string{}
	for _, m := range regexp.MustCompile(`(?m)^\| (\d+) \| (.+) \|$`).FindAllStringSubmatch(section, -1) {
		code, _ := strconv.Atoi(m[1])
		rows[code] = m[2]
	}
	if len(rows) < 10 {
		t.Fatalf("README.md's exit-code table has %d rows", len(rows))
	}
	return rows
}

// Issue 40: the README's exit-code table promises what the 2 and 124
// rows say; each promise is run here, and the code a script branches on
// is the README's number, not the constant's. A row reworded so that it
// no longer makes the promise, or code that exits otherwise, fails.
func TestREADMEExitCodeTableHoldsFor2And124(t *testing.T) {
	rows := readmeExitCodes(t)
	codeOf := func(claims ...string) int {
		t.Helper()
		found := -1
		for code, meaning := range rows {
			all := true
			for _, c := range claims {
				all = all && strings.Contains(meaning, c)
			}
			if all {
				if found >= 0 {
					t.Fatalf("two rows promise %q: %d and %d", claims, found, code)
				}
				found = code
			}
		}
		if found < 0 {
			t.Fatalf("no row of README.md's exit-code table promises %q", claims)
		}
		return found
	}

	usage := codeOf("usage error", "bad flag", "outside the range its flag's help states", "NaN")
	for _, args := range [][]string{
		{"node", "cpuhogs", "--threshold", "NaN"},
		{"parking-probe", "--procs", "100000", "--requests", "1"},
		{"instance", "list", "--timeout", "-Inf"},
		{"sim", "router", "--workers", "0"},
	} {
		if res := (clitest.CmdRun{}).Run(t, args...); res.Code != usage {
			t.Errorf("shakectl %s: exit %d, README.md says %d\n%s", strings.Join(args, " "), res.Code, usage, res)
		}
	}

	deadline := codeOf("a deadline ran out", "`--timeout`", "`--request-timeout`", "Kerbside")
	for _, args := range [][]string{
		{"instance", "list", "--timeout", "5s"},
		{"instance", "list", "--request-timeout", "5s"},
		{"instance", "vdiconsolefile", "web1", "-", "--timeout", "5s"},
	} {
		synctest.Test(t, func(t *testing.T) {
			s := kerbsideNeverAnswers(t)
			s.Register(clitest.Route("GET", "/instances"), httpstub.Delay(time.Hour, httpstub.String(200, "[]"))).Optional()
			if res := clitest.StubsInMemory(s).Run(t, args...); res.Code != deadline {
				t.Errorf("shakectl %s: exit %d, README.md says %d\n%s", strings.Join(args, " "), res.Code, deadline, res)
			}
			time.Sleep(time.Hour)
		})
	}

	// `shakectl help exit-codes` prints the same table.
	topic := clitest.CmdRun{}.Run(t, "help", "exit-codes").Stdout
	for code := range rows {
		if !regexp.MustCompile(`(?m)^  ` + strconv.Itoa(code) + ` +\S`).MatchString(topic) {
			t.Errorf("README.md's exit code %d is not in \"shakectl help exit-codes\"", code)
		}
	}
	if usage != cmdutil.ExitUsage || deadline != cmdutil.ExitTimeout {
		t.Errorf("README.md says usage %d and deadline %d; the code's constants are %d and %d", usage, deadline, cmdutil.ExitUsage, cmdutil.ExitTimeout)
	}
}
