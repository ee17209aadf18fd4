package configedit

import (
	"maps"
	"os"
	"reflect"
	"slices"
	"testing"

	"go.yaml.in/yaml/v3"
)

// FuzzConfigEdits deletes one context of, or adds one to, any config file
// the edit accepts, and checks what a user relies on: the file written is
// valid YAML again, holds exactly the contexts it should, with their
// values, and every other key as it was.
func FuzzConfigEdits(f *testing.F) {
	for _, name := range []string{"hand.in.yaml", "unset.in.yaml", "null.in.yaml"} {
		b, err := os.ReadFile("../../cmd/context/testdata/comments/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, byte(0))
		f.Add(b, byte(1))
		f.Add(b, byte(0x80))
	}
	for _, s := range []string{
		"",
		"contexts: {}\n",
		"contexts:\n",
		"contexts: {a: {api-url: http://a}, b: {namespace: x}}\ncurrent-context: b\n",
		// Anchors and aliases across contexts, and a merge key.
		"base: &b\n  api-url: http://x/api\ncontexts:\n  lab: &lab\n    namespace: lab\n  prod: *lab\n  stage:\n    <<: *b\n    namespace: s\n",
		"contexts:\n  a: &x {namespace: n}\nother: *x\n",
		"contexts:\n  a: &x\n    namespace: &ns n\n  b: *x\n  c: *x\n  d:\n    namespace: *ns\nmore: [*x, *ns]\n",
		"contexts: # c\n  a: &x\n    namespace: n\n  b: *x # one\n  c: *x # two\n  d: [*x] # three\n",
		"contexts:\n  a:\n    key: \n  b:\n    key: ~\n# foot\n",
		// An anchored value the edit changes, which an alias names: the
		// alias keeps what it named.
		"current-context: &cur a\nprevious: *cur\ncontexts:\n  a: {}\n",
		"contexts: &none\n  # none yet\n  ~\nother: *none\n",
		// An empty context in a flow mapping, which yaml.v3 prints as ''.
		"contexts: {a, b: }\ncurrent-context: b\n",
		"0: &b {0}\ncontexts: *b\n",
		// Contexts that an alias or merge keys bring: a create keeps
		// them, a delete removes only the one named.
		"base: &b\n  a: {api-url: http://a}\ncontexts: *b\n",
		"base: &b\n  a: {api-url: x}\n  d: {api-url: z}\ncontexts:\n  # merged\n  <<: *b # from base\n  c: {api-url: y}\ncurrent-context: a\n",
		"b1: &b1 {a: {}, e: {namespace: n}}\nb2: &b2\n  a: {api-url: x}\n  d:\n    api-url: z\ncontexts:\n  <<: [*b1, *b2] # both\n  c: {}\n",
		"# head\n\n# more\ncontexts: # line\n  # one\n\n  # two\n  a: {}\n  # three\n",
	} {
		f.Add([]byte(s), byte(0))
		f.Add([]byte(s), byte(1))
		f.Add([]byte(s), byte(0x80))
	}
	f.Fuzz(func(t *testing.T, raw []byte, op byte) {
		if len(raw) > 4<<10 {
			return
		}
		const path = "config.yaml"
		root, err := parseDocNode(path, raw)
		if err != nil {
			return
		}
		var before Doc
		if root.Content[0].Decode(&before) != nil {
			return
		}
		// The other keys are compared with the file as yaml.v3 writes it
		// back unedited: its own round trip has quirks (an anchored null
		// key comes back as ''), which are not the edit's doing.
		var was map[string]any
		same, err := editDoc(path, raw, func(*Doc) error { return nil })
		if err != nil || yaml.Unmarshal(same, &was) != nil {
			return
		}
		want := Doc{CurrentContext: before.CurrentContext, Contexts: maps.Clone(before.Contexts)}
		names := slices.Sorted(maps.Keys(before.Contexts))
		var edit func(*Doc) error
		if op&0x80 != 0 || len(names) == 0 {
			if _, taken := want.Contexts["fz-new"]; taken {
				return
			}
			if want.Contexts == nil {
				want.Contexts = map[string]map[string]string{}
			}
			want.Contexts["fz-new"] = map[string]string{"api-url": "http://fz/api", "namespace": "yes"}
			want.CurrentContext = "fz-new"
			edit = func(d *Doc) error {
				if d.Contexts == nil {
					d.Contexts = map[string]map[string]string{}
				}
				d.Contexts["fz-new"] = map[string]string{"api-url": "http://fz/api", "namespace": "yes"}
				d.CurrentContext = "fz-new"
				return nil
			}
		} else {
			name := names[int(op)%len(names)]
			delete(want.Contexts, name)
			if want.CurrentContext == name {
				want.CurrentContext = ""
			}
			edit = func(d *Doc) error {
				delete(d.Contexts, name)
				if d.CurrentContext == name {
					d.CurrentContext = ""
				}
				return nil
			}
		}
		out, err := editDoc(path, raw, edit)
		if err != nil {
			t.Fatalf("edit of\n%s\nfailed: %v", raw, err)
		}
		again, err := parseDocNode(path, out)
		if err != nil {
			t.Fatalf("the file written is not read back: %v\n%s\nfrom\n%s", err, out, raw)
		}
		var got Doc
		if err := again.Content[0].Decode(&got); err != nil {
			t.Fatalf("the file written does not decode: %v\n%s\nfrom\n%s", err, out, raw)
		}
		if len(want.Contexts) == 0 {
			want.Contexts = nil
		}
		if len(got.Contexts) == 0 {
			got.Contexts = nil
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("contexts %v, want %v; wrote\n%s\nfrom\n%s", got, want, out, raw)
		}
		var is map[string]any
		if err := yaml.Unmarshal(out, &is); err != nil {
			t.Fatalf("top-level keys do not decode: %v; wrote\n%s\nfrom\n%s", err, out, raw)
		}
		for _, m := range []map[string]any{was, is} {
			delete(m, "contexts")
			delete(m, "current-context")
		}
		if len(was) == 0 {
			was = nil
		}
		if len(is) == 0 {
			is = nil
		}
		if !reflect.DeepEqual(was, is) {
			t.Fatalf("other keys %v, were %v; wrote\n%s\nfrom\n%s", is, was, out, raw)
		}
	})
}
