package namespace_test

import (
	"path/filepath"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// Issue 40, item 12: namespace add-key took a key holding a NUL and sent
// it; no login could give it back (an environment variable cannot hold a
// NUL, and a key file with one is refused). A key's secret is read by the
// rule a login's key is read by: one line of UTF-8 text without control
// characters, surrounding white space dropped. What breaks it is a usage
// error (exit 2), before anything is sent, from stdin and from
// --key-file, for add-key and update-key; the error never repeats the key.
func TestNamespaceKeyMustBeText(t *testing.T) {
	for _, tc := range []struct {
		name, secret, why string
	}{
		{"a NUL", "s3cret\x00tail\n", "it holds a NUL byte"},
		{"an escape", "s3cret\x1b[2Jtail\n", "it holds a control character"},
		{"a tab", "s3cret\ttail", "it holds a control character"},
		{"two lines", "s3cret\ntail\n", "it spans more than one line"},
		{"not UTF-8", "s3cret\xff\xfetail", "it is not UTF-8 text"},
	} {
		for _, verb := range []string{"add-key", "update-key"} {
			t.Run(verb+"/"+tc.name, func(t *testing.T) {
				fa := clitest.NewStubs(t)
				r := clitest.AgainstStubs(fa)
				r.Stdin = tc.secret
				res := r.Run(t, "namespace", verb, "ci", "deploy")
				want := "error: invalid key from stdin: " + tc.why + "\nhint: see 'shakectl namespace " + verb + " --help'\n"
				if res.Code != cmdutil.ExitUsage || res.Stderr != want || len(fa.Requests()) != 0 {
					t.Errorf("stdin: %s\nwant stderr %q and nothing sent (%d requests)", res, want, len(fa.Requests()))
				}
				path := filepath.Join(t.TempDir(), "deploy.key")
				clitest.WriteFile(t, path, tc.secret)
				res = clitest.AgainstStubs(fa).Run(t, "namespace", verb, "ci", "deploy", "--key-file", path)
				want = "error: invalid key from --key-file: " + tc.why + "\nhint: see 'shakectl namespace " + verb + " --help'\n"
				if res.Code != cmdutil.ExitUsage || res.Stderr != want || len(fa.Requests()) != 0 {
					t.Errorf("--key-file: %s\nwant stderr %q", res, want)
				}
			})
		}
	}
	// The key's name is text too: it is shown, and typed back.
	fa := clitest.NewStubs(t)
	r := clitest.AgainstStubs(fa)
	r.Stdin = "s3cret\n"
	res := r.Run(t, "namespace", "add-key", "ci", "dep\x1b]0;owned\x07loy")
	want := "error: KEYNAME \"dep\\x1b]0;owned\\aloy\" holds a control character or is not UTF-8: a key's name is text\nhint: see 'shakectl namespace add-key --help'\n"
	if res.Code != cmdutil.ExitUsage || res.Stderr != want || len(fa.Requests()) != 0 {
		t.Errorf("%s\nwant %q", res, want)
	}
	// Surrounding white space is dropped, as a login's key file is read.
	fa = clitest.NewStubs(t)
	fa.Reply("POST", "/auth/namespaces/ci/keys", 200, `"deploy"`)
	r = clitest.AgainstStubs(fa)
	r.Stdin = "  s3cret  \r\n"
	if res := r.Run(t, "namespace", "add-key", "ci", "deploy"); res.Code != 0 || fa.LastBody("POST", "/auth/namespaces/ci/keys") != `{"key_name":"deploy","key":"s3cret"}` {
		t.Errorf("%s\nsent %s", res, fa.LastBody("POST", "/auth/namespaces/ci/keys"))
	}
}
