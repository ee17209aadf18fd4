package configfile

import (
	"errors"
	"slices"
	"testing"
)

// FuzzParse: whatever the file holds, Parse either refuses it with an
// *Error that names the file, or answers a map whose keys are known and
// whose values are single values; Contexts of that map never panics.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"", "api-url: http://sf/api\n", "timeout: 90\nquiet: true\n",
		"tls:\n  verify: false\n", "key: [a, b]\n", "a: 1\n---\nb: 2\n",
		"current-context: prod\ncontexts:\n  prod:\n    api-url: http://p\n    key: 7\n",
		"contexts: [1]\n", "current-context: {a: 1}\n", ": :\n",
	} {
		f.Add([]byte(s))
	}
	keys := []string{"api-url", "key", "timeout", "quiet"}
	f.Fuzz(func(t *testing.T, raw []byte) {
		file, err := Parse("/cfg.yaml", raw, keys)
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) || len(ce.Msg) == 0 {
				t.Fatalf("Parse error %T %v is not an *Error", err, err)
			}
			return
		}
		for k, v := range file {
			if k == "current-context" || k == "contexts" {
				continue
			}
			if !slices.Contains(keys, k) {
				t.Fatalf("unknown key %q accepted", k)
			}
			switch v.(type) {
			case nil, string, bool, int, int64, uint64, float64:
			default:
				t.Fatalf("key %q holds a %T", k, v)
			}
		}
		_, _ = Contexts(file)
	})
}
