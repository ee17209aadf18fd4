package output

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/shakenfist/shakectl/output/termtext"
)

// Every printer in this package, on a terminal and piped, shows a server's
// escape-laden text without obeying it (issue 28, item 11).
func TestEveryPrinterSanitisesServerText(t *testing.T) {
	const evil = "\x1b]0;pwned\x07\x1b[2K\rFAKE: all good\u009b2J\u202e"
	raw, _ := json.Marshal(map[string]string{"name": evil})
	for _, tty := range []bool{true, false} {
		for _, format := range []Format{FormatTable, FormatSimple} {
			s, _, out, errOut := Test()
			s.SetTTY(tty, tty)
			PrintList(s, format, List{Columns: []Column{{Header: "NAME", Paint: StatePainter}}, Rows: [][]string{{evil}}, Raw: []json.RawMessage{raw}})
			PrintDetail(s, format, Detail{Fields: []Field{{Name: "name", Value: evil, Paint: StatePainter}}, Raw: raw})
			s.Notifier().Error(ErrorReport{Message: "POST /instances: " + evil, Hint: "stage " + evil})
			for name, b := range map[string]*bytes.Buffer{"stdout": out, "stderr": errOut} {
				if got := b.String(); termtext.Block(got) != got {
					t.Errorf("tty %v %s %s: %q", tty, format, name, got)
				}
			}
		}
		s, _, out, _ := Test()
		s.SetTTY(tty, tty)
		PrintJSONBody(s, FormatJSON, []byte("<html>"+evil+"</html>\n"), true)
		if got := out.String(); tty && termtext.Block(got) != got {
			t.Errorf("a non-JSON body on a terminal: %q", got)
		} else if !tty && got != "<html>"+evil+"</html>\n" {
			t.Errorf("a piped body must stay the server's bytes: %q", got)
		}
	}
}

// --jq's bare strings are the server's text too: on a terminal they are
// made harmless (scripts/hostile.sh found `instance list --jq '.[].name'`
// printing a name's OSC title, erase-line and CR raw); piped they stay the
// server's bytes, ready for a shell loop.
func TestJQStringsOnATerminalAreSanitised(t *testing.T) {
	const evil = "\x1b]0;pwned\x07\x1b[2K\rFAKE: all good\u009b2J"
	raw, _ := json.Marshal(map[string]string{"name": evil})
	code, err := ParseJQ(".name")
	if err != nil {
		t.Fatal(err)
	}
	for _, tty := range []bool{true, false} {
		s, _, out, _ := Test()
		s.SetTTY(tty, tty)
		s.SetTableOptions(TableOptions{JQ: code})
		if err := PrintDetail(s, FormatJSON, Detail{Raw: raw}); err != nil {
			t.Fatal(err)
		}
		got := out.String()
		switch {
		case tty && termtext.Block(got) != got:
			t.Errorf("on a terminal: %q", got)
		case tty && !bytes.Contains([]byte(got), []byte("FAKE: all good")):
			t.Errorf("on a terminal the text itself is lost: %q", got)
		case !tty && got != evil+"\n":
			t.Errorf("piped, a --jq string must stay the server's bytes: %q", got)
		}
	}
}
