package output_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"strings"
	"testing"
	"time"

	"github.com/shakenfist/shakectl/output"
)

// sayAll has the notifier say one thing of every kind.
func sayAll(n *output.Notifier) {
	n.Warn("no sha512 for blob \x1b[2Kb1")
	n.Note("saved", "screenshot of web1 is web1.png")
	n.Event("GET /x: capacity refused", struct {
		Event string `json:"event"`
		Path  string `json:"path"`
	}{"retry", "/x"})
	n.Block("banner", "simulator at http://127.0.0.1:13000\n  export A=b\n")
	n.Progress("progress", "instance web1: creating")
	lw := n.Lines("log")
	fmt.Fprint(lw, "first line\nsecond ")
	fmt.Fprint(lw, "line, whole\n")
	fmt.Fprint(n.Debug(), "debug: > GET /instances\n")
	m := n.Meter("download", "disk.img", 10, 0, func() time.Time { return time.Unix(0, 0) })
	m.Finish(10, true)
	_ = n.Report(func(w io.Writer) error { _, err := io.WriteString(w, "report\n  ok\n"); return err })
	n.Error(output.ErrorReport{Message: "capacity refused", Hint: "wait", ExitCode: 75})
}

// Each kind, as a person reads it, as -o json writes it, and as --quiet
// leaves it: the lines a user sees, exactly.
func TestNotifierKinds(t *testing.T) {
	for _, tt := range []struct {
		name string
		mode output.NotifyMode
		tty  bool
		want string
	}{
		{"piped", output.NotifyMode{}, false, `warning: no sha512 for blob  [2Kb1
screenshot of web1 is web1.png
GET /x: capacity refused
simulator at http://127.0.0.1:13000
  export A=b
first line
second line, whole
debug: > GET /instances
report
  ok
error: capacity refused
hint: wait
`},
		{"terminal", output.NotifyMode{}, true, `warning: no sha512 for blob  [2Kb1
screenshot of web1 is web1.png
GET /x: capacity refused
simulator at http://127.0.0.1:13000
  export A=b
instance web1: creating
first line
second line, whole
debug: > GET /instances
` + "\rdownload disk.img  10 B / 10 B 100% [====================]\x1b[K\n" + `report
  ok
error: capacity refused
hint: wait
`},
		{"json", output.NotifyMode{JSON: true}, false, `{"warning":"no sha512 for blob \u001b[2Kb1"}
{"event":"saved","message":"screenshot of web1 is web1.png"}
{"event":"retry","path":"/x"}
{"event":"banner","message":"simulator at http://127.0.0.1:13000\n  export A=b"}
{"event":"log","message":"first line"}
{"event":"log","message":"second line, whole"}
{"event":"debug","message":"debug: > GET /instances"}
{"progress":"download","name":"disk.img","bytes":10,"total":10,"percent":100,"bytes_per_second":0,"done":true}
{"event":"report","message":"report"}
{"event":"report","message":"  ok"}
{"error":"capacity refused","hint":"wait","exit_code":75}
`},
		{"quiet", output.NotifyMode{Quiet: true}, true, `debug: > GET /instances
error: capacity refused
hint: wait
`},
		{"quiet json", output.NotifyMode{JSON: true, Quiet: true}, false, `{"event":"debug","message":"debug: > GET /instances"}
{"error":"capacity refused","hint":"wait","exit_code":75}
`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, _, errOut := output.Test()
			ios.SetTTY(tt.tty, tt.tty)
			ios.Notifier().SetMode(tt.mode)
			sayAll(ios.Notifier())
			if got := errOut.String(); got != tt.want {
				t.Errorf("stderr\n got %q\nwant %q", got, tt.want)
			}
			if tt.mode.JSON {
				everyLineIsJSON(t, errOut.String())
			}
		})
	}
}

func everyLineIsJSON(t *testing.T, stderr string) {
	t.Helper()
	for _, l := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
		var obj map[string]any
		if err := json.Unmarshal([]byte(l), &obj); err != nil {
			t.Errorf("not a JSON object: %q", l)
		}
	}
}

// A note quotes servers and clients: one line each, whatever it holds,
// on a terminal and in a log's lines; under -o json the text is the
// value, C1 controls escaped.
func TestNotifierKeepsEachNoteOneLine(t *testing.T) {
	const evil = "x\nerror: all good\r\x1b]0;PWNED\a\u009b2J"
	ios, _, _, errOut := output.Test()
	n := ios.Notifier()
	n.Note("e", evil)
	n.Warn(evil)
	n.Event(evil, nil)
	n.Error(output.ErrorReport{Message: evil})
	want := "x error: all good  ]0;PWNED  2J\n" +
		"warning: x error: all good  ]0;PWNED  2J\n" +
		"x error: all good  ]0;PWNED  2J\n" +
		"error: x error: all good  ]0;PWNED  2J\n"
	if got := errOut.String(); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}

	ios, _, _, errOut = output.Test()
	n = ios.Notifier()
	n.SetMode(output.NotifyMode{JSON: true})
	n.Note("e", evil)
	if strings.Contains(errOut.String(), "\u009b") {
		t.Errorf("a raw C1 control: %q", errOut)
	}
	var obj map[string]string
	if err := json.Unmarshal(errOut.Bytes(), &obj); err != nil || obj["message"] != evil {
		t.Errorf("the note %q decodes to %q (%v)", errOut, obj, err)
	}
}

// A prompt is its own kind: shown under --quiet, on the line of the
// answer at a terminal, and a JSON object under -o json, where a hidden
// answer adds no line break of its own.
func TestNotifierPrompt(t *testing.T) {
	for _, tt := range []struct {
		mode output.NotifyMode
		want string
	}{
		{output.NotifyMode{}, "key for ci/deploy (not echoed): \n"},
		{output.NotifyMode{Quiet: true}, "key for ci/deploy (not echoed): \n"},
		{output.NotifyMode{JSON: true}, `{"event":"prompt","message":"key for ci/deploy (not echoed):"}` + "\n"},
	} {
		ios, _, _, errOut := output.Test()
		n := ios.Notifier()
		n.SetMode(tt.mode)
		n.Prompt("key for ci/deploy (not echoed):")
		n.PromptDone()
		if got := errOut.String(); got != tt.want {
			t.Errorf("%+v: got %q, want %q", tt.mode, got, tt.want)
		}
	}
}

// The status line is redrawn in place on a terminal only, never under
// -o json; another line clears it first, and EndStatus clears it.
func TestNotifierStatusLine(t *testing.T) {
	ios, _, _, errOut := output.Test()
	ios.SetTTY(true, true)
	n := ios.Notifier()
	n.Status("1.0s  sent 4")
	n.Status("2.0s  sent 8")
	n.Warn("behind schedule")
	n.Status("3.0s  sent 9")
	n.EndStatus()
	n.EndStatus()
	want := "\r\x1b[K1.0s  sent 4\r\x1b[K2.0s  sent 8\r\x1b[Kwarning: behind schedule\n\r\x1b[K3.0s  sent 9\r\x1b[K"
	if got := errOut.String(); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	for _, tt := range []struct {
		tty  bool
		mode output.NotifyMode
	}{{false, output.NotifyMode{}}, {true, output.NotifyMode{JSON: true}}, {true, output.NotifyMode{Quiet: true}}} {
		ios, _, _, errOut := output.Test()
		ios.SetTTY(tt.tty, tt.tty)
		ios.Notifier().SetMode(tt.mode)
		ios.Notifier().Status("1.0s")
		ios.Notifier().EndStatus()
		if errOut.Len() != 0 {
			t.Errorf("tty %v %+v: %q", tt.tty, tt.mode, errOut)
		}
	}
}

// A run that never resolves its configuration writes as the resolver
// says, once asked; SetMode wins over it.
func TestNotifierResolvesItsModeOnce(t *testing.T) {
	ios, _, _, errOut := output.Test()
	n := ios.Notifier()
	calls := 0
	n.ResolveModeWith(func() output.NotifyMode { calls++; return output.NotifyMode{JSON: true} })
	n.Note("a", "one")
	n.Note("b", "two")
	if calls != 1 || errOut.String() != `{"event":"a","message":"one"}`+"\n"+`{"event":"b","message":"two"}`+"\n" {
		t.Errorf("%d calls: %q", calls, errOut)
	}
	n.SetMode(output.NotifyMode{})
	n.Note("c", "three")
	if !strings.HasSuffix(errOut.String(), "}\nthree\n") {
		t.Errorf("after SetMode: %q", errOut)
	}
}

// Go's log package, pointed at Lines, writes notes: under -o json a
// logger's line (an http.Server's error) is an object, not a dated line.
func TestNotifierLinesTakeALogger(t *testing.T) {
	ios, _, _, errOut := output.Test()
	ios.Notifier().SetMode(output.NotifyMode{JSON: true})
	l := log.New(ios.Notifier().Lines("log"), "proxy: ", log.LstdFlags)
	l.Printf("http: TLS handshake error from 127.0.0.1:5: %v", errors.New("EOF"))
	var obj map[string]string
	if err := json.Unmarshal(errOut.Bytes(), &obj); err != nil || obj["event"] != "log" || !strings.HasSuffix(obj["message"], "http: TLS handshake error from 127.0.0.1:5: EOF") {
		t.Errorf("%q", errOut)
	}
}

// Relay passes another program's bytes as they came, in every mode.
func TestNotifierRelay(t *testing.T) {
	ios, _, _, errOut := output.Test()
	ios.Notifier().SetMode(output.NotifyMode{JSON: true, Quiet: true})
	const raw = "\x1b[31mcompiling\x1b[0m\r50%\n"
	fmt.Fprint(ios.Notifier().Relay(), raw)
	if errOut.String() != raw {
		t.Errorf("%q", errOut)
	}
}

// An event without fields is still an object under -o json: its text.
func TestNotifierEventWithoutFields(t *testing.T) {
	ios, _, _, errOut := output.Test()
	ios.Notifier().SetMode(output.NotifyMode{JSON: true})
	ios.Notifier().Event("proxy: 1 request forwarded", nil)
	if got := errOut.String(); got != `{"message":"proxy: 1 request forwarded"}`+"\n" {
		t.Errorf("%q", got)
	}
}

// A line written while the mode is being resolved (Go's log, from a
// library the resolver calls) is written in the mode before, and the
// resolver runs once: no deadlock, no recursion.
func TestNotifierLineDuringResolve(t *testing.T) {
	ios, _, _, errOut := output.Test()
	n := ios.Notifier()
	calls := 0
	n.ResolveModeWith(func() output.NotifyMode {
		calls++
		fmt.Fprintln(n.Lines("log"), "config: read")
		return output.NotifyMode{JSON: true}
	})
	n.Note("e", "after")
	if calls != 1 || errOut.String() != "config: read\n"+`{"event":"e","message":"after"}`+"\n" {
		t.Errorf("%d calls: %q", calls, errOut)
	}
}
