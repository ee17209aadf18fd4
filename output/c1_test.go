package output

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// c1Name is a server's string holding an 8-bit CSI (U+009B, which some
// terminals obey as ESC [) and NEL (U+0085).
const c1Name = "web\u009b2J\u00851"

// rawC1 reports whether b holds the UTF-8 of a C1 control, U+0080..U+009F.
func rawC1(b []byte) bool {
	for i := 0; i+1 < len(b); i++ {
		if b[i] == 0xc2 && b[i+1] >= 0x80 && b[i+1] <= 0x9f {
			return true
		}
	}
	return false
}

// Every JSON (and YAML) printer of this package writes a server's C1
// controls escaped, on a terminal and piped, and the value a program
// decodes is the server's: encoding/json alone escapes C0 but writes C1 raw
// (scripts/hostile.sh's escapes/tty-json found U+009B on a pty).
func TestJSONPrintersEscapeC1(t *testing.T) {
	obj := map[string]any{"name": c1Name, "metadata": map[string]any{c1Name: []any{c1Name}}}
	raw, _ := json.Marshal(obj)
	if !rawC1(raw) {
		t.Fatal("the fixture should hold raw C1, as encoding/json writes it")
	}
	list := List{Columns: []Column{{Header: "NAME"}}, Rows: [][]string{{c1Name}}, Raw: []json.RawMessage{raw}}
	jqNonString, err := ParseJQ(".[0] | ., .metadata, [.name]")
	if err != nil {
		t.Fatal(err)
	}
	for _, tty := range []bool{true, false} {
		type printed struct {
			name string
			run  func(s *IOStreams) error
			want []any // the values the output decodes to, in order
			yaml bool
		}
		for _, p := range []printed{
			{"list -o json", func(s *IOStreams) error { return PrintList(s, FormatJSON, list) }, []any{[]any{obj}}, false},
			{"detail -o json", func(s *IOStreams) error { return PrintDetail(s, FormatJSON, Detail{Raw: raw}) }, []any{obj}, false},
			{"body -o json", func(s *IOStreams) error { return PrintJSONBody(s, FormatJSON, raw, true) }, []any{obj}, false},
			{"list -o yaml", func(s *IOStreams) error { return PrintList(s, FormatYAML, list) }, []any{[]any{obj}}, true},
			{"detail -o yaml", func(s *IOStreams) error { return PrintDetail(s, FormatYAML, Detail{Raw: raw}) }, []any{obj}, true},
			{"--jq", func(s *IOStreams) error {
				s.SetTableOptions(TableOptions{JQ: jqNonString})
				return PrintList(s, FormatJSON, list)
			}, []any{obj, obj["metadata"], []any{c1Name}}, false},
		} {
			s, _, out, _ := Test()
			s.SetTTY(tty, tty)
			if err := p.run(s); err != nil {
				t.Fatalf("%s: %v", p.name, err)
			}
			if rawC1(out.Bytes()) {
				t.Errorf("tty %v, %s: raw C1 in %q", tty, p.name, out)
			}
			var got []any
			if p.yaml {
				var v any
				if err := yaml.Unmarshal(out.Bytes(), &v); err != nil {
					t.Fatalf("%s: %v", p.name, err)
				}
				got = []any{v}
			} else {
				dec := json.NewDecoder(out)
				for dec.More() {
					var v any
					if err := dec.Decode(&v); err != nil {
						t.Fatalf("%s: %v", p.name, err)
					}
					got = append(got, v)
				}
			}
			if !reflect.DeepEqual(got, p.want) {
				t.Errorf("tty %v, %s: decodes to %#v, want %#v", tty, p.name, got, p.want)
			}
		}

		// The error object on stderr under -o json quotes the server too.
		s, _, _, errOut := Test()
		s.SetTTY(tty, tty)
		s.Notifier().SetMode(NotifyMode{JSON: true})
		s.Notifier().Error(ErrorReport{Message: "POST /instances: " + c1Name, Stage: c1Name})
		var rep ErrorReport
		if rawC1(errOut.Bytes()) || json.Unmarshal(errOut.Bytes(), &rep) != nil || rep.Stage != c1Name || !strings.HasSuffix(rep.Message, c1Name) {
			t.Errorf("tty %v, the error line: %q", tty, errOut)
		}
	}

	// `api` piped keeps its promise of "the body as sent": the server's
	// bytes, not re-encoded.
	s, _, out, _ := Test()
	if err := PrintJSONBody(s, FormatJSON, raw, false); err != nil || !bytes.Equal(bytes.TrimSuffix(out.Bytes(), []byte("\n")), raw) {
		t.Errorf("a piped body is the server's bytes: %q (%v)", out, err)
	}
}
