package output

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

var sampleList = List{
	Columns: []Column{{Header: "name"}, {Header: "state", Paint: StatePainter}, {Header: "cpus"}},
	Rows: [][]string{
		{"web1", "created", "2"},
		{"a-much-longer-name", "error", "16"},
	},
	Raw: []json.RawMessage{
		json.RawMessage(`{"uuid":"u1","name":"web1","state":"created","cpus":2,"extra":{"z":1,"a":2}}`),
		json.RawMessage(`{"uuid":"u2","name":"a-much-longer-name","state":"error","cpus":16}`),
	},
}

func TestPrintListTableOnTerminalIsAlignedWithHeader(t *testing.T) {
	s, _, out, _ := Test()
	s.SetTTY(true, true)
	if err := PrintList(s, FormatTable, sampleList); err != nil {
		t.Fatal(err)
	}
	want := "" +
		"NAME                STATE    CPUS\n" +
		"web1                created  2\n" +
		"a-much-longer-name  error    16\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

func TestPrintListColourKeepsAlignment(t *testing.T) {
	s, _, out, _ := Test()
	s.SetTTY(true, true)
	s.SetColour(true)
	if err := PrintList(s, FormatTable, sampleList); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if !strings.Contains(got, "\x1b[1mNAME\x1b[22m") {
		t.Errorf("header not bold: %q", got)
	}
	if !strings.Contains(got, "\x1b[32mcreated\x1b[0m") || !strings.Contains(got, "\x1b[31merror\x1b[0m") {
		t.Errorf("states not coloured: %q", got)
	}
	// Without the escapes the layout is the plain one.
	plain := stripANSI(got)
	if !strings.HasPrefix(plain, "NAME                STATE    CPUS\nweb1                created  2\n") {
		t.Errorf("colour broke alignment:\n%s", plain)
	}
}

func TestPrintListPipedAndSimpleAreTabSeparatedWithoutHeader(t *testing.T) {
	for _, format := range []Format{FormatTable, FormatSimple} {
		s, _, out, _ := Test()
		s.SetColour(true) // CLICOLOR_FORCE must not put escapes into data rows
		if err := PrintList(s, format, sampleList); err != nil {
			t.Fatal(err)
		}
		want := "web1\tcreated\t2\na-much-longer-name\terror\t16\n"
		if out.String() != want {
			t.Errorf("%s: got %q want %q", format, out, want)
		}
	}
}

func TestPrintListJSONIsTheServersObjects(t *testing.T) {
	s, _, out, _ := Test()
	if err := PrintList(s, FormatJSON, sampleList); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	// Key order and unknown fields survive.
	if !strings.Contains(got, `"extra": {`+"\n"+`      "z": 1,`+"\n"+`      "a": 2`) {
		t.Errorf("raw object not kept:\n%s", got)
	}
	var v []map[string]any
	if err := json.Unmarshal(out.Bytes(), &v); err != nil || len(v) != 2 {
		t.Fatalf("not a JSON array of 2: %v\n%s", err, got)
	}
}

func TestPrintListEmpty(t *testing.T) {
	for format, want := range map[Format]string{FormatJSON: "[]\n", FormatYAML: "[]\n", FormatSimple: "", FormatTable: ""} {
		s, _, out, _ := Test()
		if err := PrintList(s, format, List{Columns: sampleList.Columns}); err != nil {
			t.Fatal(err)
		}
		if out.String() != want {
			t.Errorf("%s: got %q want %q", format, out, want)
		}
	}
}

func TestPrintListYAML(t *testing.T) {
	s, _, out, _ := Test()
	if err := PrintList(s, FormatYAML, sampleList); err != nil {
		t.Fatal(err)
	}
	want := `- uuid: u1
  name: web1
  state: created
  cpus: 2
  extra:
    z: 1
    a: 2
- uuid: u2
  name: a-much-longer-name
  state: error
  cpus: 16
`
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

func TestPrintDetail(t *testing.T) {
	d := Detail{
		Fields: []Field{{Name: "uuid", Value: "u1"}, {Name: "state", Value: "created", Paint: StatePainter}, {Name: "error_message", Value: ""}},
		Raw:    json.RawMessage(`{"uuid":"u1","state":"created"}`),
	}
	s, _, out, _ := Test()
	s.SetTTY(true, true)
	if err := PrintDetail(s, FormatTable, d); err != nil {
		t.Fatal(err)
	}
	if want := "uuid           u1\nstate          created\nerror_message\n"; out.String() != want {
		t.Errorf("tty: got %q want %q", out, want)
	}

	s, _, out, _ = Test()
	if err := PrintDetail(s, FormatTable, d); err != nil {
		t.Fatal(err)
	}
	if want := "uuid\tu1\nstate\tcreated\nerror_message\t\n"; out.String() != want {
		t.Errorf("piped: got %q want %q", out, want)
	}

	s, _, out, _ = Test()
	if err := PrintDetail(s, FormatJSON, d); err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"uuid\": \"u1\",\n  \"state\": \"created\"\n}\n"; out.String() != want {
		t.Errorf("json: got %q want %q", out, want)
	}

	s, _, out, _ = Test()
	s.SetTTY(true, true)
	s.SetColour(true)
	if err := PrintDetail(s, FormatTable, d); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "\x1b[1muuid\x1b[22m") || !strings.Contains(out.String(), "\x1b[32mcreated\x1b[0m") {
		t.Errorf("colour: %q", out)
	}
}

func TestPrintRejectsUnknownFormat(t *testing.T) {
	s, _, _, _ := Test()
	if err := PrintList(s, "xml", sampleList); err == nil {
		t.Error("list: want an error for xml")
	}
	if err := PrintDetail(s, "xml", Detail{}); err == nil {
		t.Error("detail: want an error for xml")
	}
}

func TestPrintJSONOfBrokenRawFailsInOneLine(t *testing.T) {
	s, _, out, _ := Test()
	err := PrintDetail(s, FormatJSON, Detail{Raw: json.RawMessage(`{"uuid": "u1"`)})
	if err == nil || strings.Contains(err.Error(), "\n") {
		t.Fatalf("want a one-line error, got %v", err)
	}
	if out.Len() != 0 {
		t.Errorf("half a document reached stdout: %q", out)
	}
}

func TestCellsStayOnOneLineAndDropControlCharacters(t *testing.T) {
	l := List{Columns: []Column{{Header: "msg"}}, Rows: [][]string{{"two\nlines\tand \x1b[2Jclear"}}}
	s, _, out, _ := Test()
	if err := PrintList(s, FormatSimple, l); err != nil {
		t.Fatal(err)
	}
	if want := "two lines and  [2Jclear\n"; out.String() != want {
		t.Errorf("got %q want %q", out, want)
	}
}

func TestPrintJSONBody(t *testing.T) {
	cases := []struct {
		format Format
		pretty bool
		body   string
		want   string
	}{
		{FormatJSON, true, `{"b":1,"a":[true,null]}`, "{\n  \"b\": 1,\n  \"a\": [\n    true,\n    null\n  ]\n}\n"},
		{FormatTable, false, `{"b":1}`, "{\"b\":1}\n"},
		{FormatYAML, false, `{"b":1,"a":"x"}`, "b: 1\na: x\n"},
		{FormatJSON, true, `<html>not json</html>`, `<html>not json</html>`},
		{FormatJSON, true, ``, ``},
	}
	for _, c := range cases {
		s, _, out, _ := Test()
		if err := PrintJSONBody(s, c.format, []byte(c.body), c.pretty); err != nil {
			t.Fatal(err)
		}
		if out.String() != c.want {
			t.Errorf("%s %q: got %q want %q", c.format, c.body, out, c.want)
		}
	}
}

func TestJSONToYAMLQuotesWhatWouldChangeType(t *testing.T) {
	got, err := JSONToYAML([]byte(`{"p":"on","q":"No","s":"true","n":"12","z":"null","e":"","m":"a\nb","real":1.5,"int":-3,"big":12345678901234567890,"o":{},"l":[],"dup":1,"dup":2}`))
	if err != nil {
		t.Fatal(err)
	}
	want := `p: "on"
q: "No"
s: "true"
"n": "12"
z: "null"
e: ""
m: "a\nb"
real: 1.5
int: -3
big: 12345678901234567890
o: {}
l: []
dup: 2
`
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestJSONToYAMLRejectsBrokenJSON(t *testing.T) {
	for _, in := range []string{``, `{`, `{"a":}`, `[1,2`, `{"a":1} {"b":2}`, `<html>`, `{1:2}`} {
		if _, err := JSONToYAML([]byte(in)); err == nil {
			t.Errorf("%q: want an error", in)
		}
	}
}

// FuzzJSONToYAML checks that any JSON document becomes YAML that reads back
// as the same value.
func FuzzJSONToYAML(f *testing.F) {
	for _, s := range []string{
		`{"a":1}`, `[]`, `"x"`, `null`, `{"k":"- item"}`, `{"k":": colon"}`, `{"k":"#hash"}`,
		`{"k":"\u0000\u001b"}`, `{"":""}`, `{"k":"yes"}`, `{"k":"~"}`, `{"k":"0x1F"}`, `{"k":"1e3"}`,
		`{"a":{"b":[{"c":[[]]}]}}`, `{"k":"\ud83d\ude00"}`, `{"k":"\ufeffbom"}`, `{"k":" lead"}`, `[1.0e+2,-0]`,
		`{"k":"a\u2028b"}`, `{"k":"\"quoted\""}`, `{"k":"'single'"}`, `{"k":"*alias"}`, `{"k":"&anchor"}`, `{"k":"!tag"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var want any
		if json.Unmarshal(in, &want) != nil {
			return
		}
		y, err := JSONToYAML(in)
		if err != nil {
			t.Fatalf("valid JSON %q rejected: %v", in, err)
		}
		var back any
		if err := yaml.Unmarshal(y, &back); err != nil {
			t.Fatalf("YAML for %q does not parse: %v\n%s", in, err, y)
		}
		rt, err := json.Marshal(back)
		if err != nil {
			// Integers beyond float64 come back as big numbers YAML reads
			// as strings or uint64s; only compare what JSON can say.
			return
		}
		var got any
		if err := json.Unmarshal(rt, &got); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) && !hasHugeNumber(want) {
			t.Fatalf("round trip of %q:\n got %#v\nwant %#v\nyaml:\n%s", in, got, want, y)
		}
	})
}

func hasHugeNumber(v any) bool {
	switch t := v.(type) {
	case float64:
		return t > 1<<53 || t < -(1<<53) || t != float64(int64(t)) && (t > 1e15 || t < -1e15)
	case []any:
		for _, x := range t {
			if hasHugeNumber(x) {
				return true
			}
		}
	case map[string]any:
		for _, x := range t {
			if hasHugeNumber(x) {
				return true
			}
		}
	}
	return false
}

func stripANSI(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b {
			for i < len(s) && s[i] != 'm' {
				i++
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func TestJSONToYAMLDeepNestingStaysSmall(t *testing.T) {
	const depth = 5000
	in := strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth)
	y, err := JSONToYAML([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(y) > 20*len(in) {
		t.Fatalf("YAML for %d bytes of JSON is %d bytes", len(in), len(y))
	}
	var back any
	if err := yaml.Unmarshal(y, &back); err != nil {
		t.Fatal(err)
	}
}

// A terminal table too narrow for its rows cuts names, never a UUID, even
// one inside a cell (a cluster operation's "net_op/UUID"): the row is left
// wider than the terminal instead.
func TestFittedTableKeepsUUIDsWhole(t *testing.T) {
	const op = "net_op/6a4e1a57-1b43-4cd8-9d39-9a4c0b0d1f01"
	s, _, out, _ := Test()
	s.SetTTY(true, true)
	s.SetWidth(40)
	l := List{
		Columns: []Column{{Header: "NAME"}, {Header: "OPERATION"}, {Header: "NOTE"}},
		Rows: [][]string{
			{"a-name-longer-than-the-terminal-allows", op + " (and a tail)", "a long note that gives way"},
		},
	}
	if err := PrintList(s, FormatTable, l); err != nil {
		t.Fatal(err)
	}
	want := "NAME      OPERATION                                     NOTE\n" +
		"a-name-…  net_op/6a4e1a57-1b43-4cd8-9d39-9a4c0b0d1f01…  a long …\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}
