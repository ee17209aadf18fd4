package termtext

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// hasRawC1 reports whether b holds the UTF-8 of U+0080..U+009F.
func hasRawC1(b []byte) bool { return indexC1(b) >= 0 }

func TestJSONEscapesC1AndKeepsTheValue(t *testing.T) {
	in := []byte("{\"name\":\"web\u009b2J\u0085x\",\"\u0080k\":[\"\u009f\",\"é ě\u00a0\"]}")
	got := JSON(in)
	want := `{"name":"web\u009b2J\u0085x","\u0080k":["\u009f","é ě` + "\u00a0" + `"]}`
	if string(got) != want {
		t.Errorf("JSON(%q)\n got %s\nwant %s", in, got, want)
	}
	var a, b any
	if json.Unmarshal(in, &a) != nil || json.Unmarshal(got, &b) != nil || !reflect.DeepEqual(a, b) {
		t.Errorf("the value changed: %v → %v", a, b)
	}
	plain := []byte(`{"name":"web-1","é":"\u001b"}`)
	if got := JSON(plain); &got[0] != &plain[0] {
		t.Errorf("JSON without C1 should come back as it is")
	}
}

// FuzzJSON: valid JSON in, valid JSON out, the same value, and no raw C1.
func FuzzJSON(f *testing.F) {
	for _, s := range hostile {
		b, _ := json.Marshal(map[string]string{s: s})
		f.Add(b)
	}
	f.Add([]byte("\"\xe2\xc2\x85\xf0\x9f\xc2\x9b\xc2\""))        // invalid UTF-8 around C1
	f.Add([]byte("[\"\\u009b\",\"\xc2\x9b\",\"\\\\\xc2\x80\"]")) // escaped, raw, after a backslash
	f.Add([]byte(`{"a":[1,2.5e3,true,null,{"b":"\u0085"}]}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		if !json.Valid(in) {
			return
		}
		got := JSON(in)
		if !json.Valid(got) {
			t.Fatalf("invalid JSON %q from %q", got, in)
		}
		if hasRawC1(got) {
			t.Fatalf("raw C1 left in %q", got)
		}
		var a, b any
		if err := json.Unmarshal(in, &a); err != nil {
			return // valid but too deep for Unmarshal
		}
		if err := json.Unmarshal(got, &b); err != nil || !reflect.DeepEqual(a, b) {
			t.Fatalf("value changed: %q → %q (%v)", in, got, err)
		}
		if !hasRawC1(in) && !bytes.Equal(in, got) {
			t.Fatalf("JSON without C1 changed: %q → %q", in, got)
		}
	})
}
