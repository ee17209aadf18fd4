package namespace_test

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// The answers below are the real server's: namespace views of shakenfist
// da448b1a auth.py (clitest.FixtureNamespaces), refusals recorded in client/testdata
// (SOURCES.md names each one's source).

func TestNamespaceShowGolden(t *testing.T) {
	clitest.GoldenFormatsOf(t, clitest.AgainstStubs(clitest.NewFixtureStubs(t)), "namespace_show", "namespace", "show", "ns1")
}

func TestNamespaceCreateSendsTheName(t *testing.T) {
	fa := clitest.NewStubs(t)
	fa.Reply("POST", "/auth/namespaces", 200, `{"name":"ci","state":"created","metadata":{},"version":5,"keys":[],"trust":{"full":["system"]}}`)
	res := clitest.AgainstStubs(fa).Run(t, "namespace", "create", "ci", "-o", "simple")
	if res.Code != 0 || !strings.Contains(res.Stdout, "name\tci\n") {
		t.Fatal(res)
	}
	if got := fa.LastBody("POST", "/auth/namespaces"); got != `{"namespace":"ci"}` {
		t.Errorf("body = %s", got)
	}
}

func TestNamespaceDeleteRefusedWhileInUseSaysClean(t *testing.T) {
	fa := clitest.NewStubs(t)
	rep := clitest.RecordedRefusal(t, "sf2024/refusals.json", "400 namespace with instances")
	// The refusal, then (the namespace emptied) the delete.
	fa.Canned("DELETE", "/auth/namespaces/ci", rep).Times(1)
	res := clitest.AgainstStubs(fa).Run(t, "namespace", "delete", "ci")
	if res.Code != cmdutil.ExitFailure || !strings.Contains(res.Stderr, "you cannot delete a namespace with instances") ||
		!strings.Contains(res.Stderr, "shakectl namespace clean ci") && !strings.Contains(res.Stderr, "namespace clean NAMESPACE") {
		t.Fatal(res)
	}
	fa.Reply("DELETE", "/auth/namespaces/ci", 200, "null")
	if res := clitest.AgainstStubs(fa).Run(t, "namespace", "delete", "ci"); res.Code != 0 || res.Stdout != "" {
		t.Fatal(res)
	}
}

const keySecret = "s3cret-0f-the-new-key-5d2e"

func TestNamespaceAddKeyReadsStdinAndNeverPrintsIt(t *testing.T) {
	fa := clitest.NewStubs(t)
	fa.Reply("POST", "/auth/namespaces/ci/keys", 200, `"deploy"`)
	for _, format := range []string{"table", "json", "yaml"} {
		r := clitest.AgainstStubs(fa)
		r.Stdin = keySecret + "\n"
		res := r.Run(t, "namespace", "add-key", "ci", "deploy", "-o", format, "--debug")
		if res.Code != 0 || !strings.Contains(res.Stdout, "deploy") {
			t.Fatal(res)
		}
		if strings.Contains(res.Stdout+res.Stderr, keySecret) {
			t.Fatalf("-o %s printed the key:\n%s", format, res)
		}
		// --debug shows the request, with the secret redacted; under -o
		// json each line is a {"event":"debug","message":…} object.
		debug := res.Stderr
		if format == "json" {
			debug = ""
			for _, l := range strings.Split(strings.TrimSpace(res.Stderr), "\n") {
				var obj map[string]string
				if err := json.Unmarshal([]byte(l), &obj); err != nil || obj["event"] != "debug" {
					t.Fatalf("-o json --debug: stderr line %q", l)
				}
				debug += obj["message"] + "\n"
			}
		}
		if !strings.Contains(debug, "debug: > POST "+r.Url+"/auth/namespaces/ci/keys") || !strings.Contains(debug, `"key":"[redacted]"`) {
			t.Errorf("--debug:\n%s", res.Stderr)
		}
	}
	var body map[string]any
	_ = json.Unmarshal([]byte(fa.LastBody("POST", "/auth/namespaces/ci/keys")), &body)
	if body["key_name"] != "deploy" || body["key"] != keySecret || body["expiry"] != nil {
		t.Errorf("body = %v", body)
	}
}

func TestNamespaceAddKeyNeverTakesTheSecretFromArgv(t *testing.T) {
	fa := clitest.NewStubs(t)
	res := clitest.AgainstStubs(fa).Run(t, "namespace", "add-key", "ci", "deploy", keySecret)
	if res.Code != cmdutil.ExitUsage || fa.Count("POST", "/auth/namespaces/ci/keys") != 0 {
		t.Fatal(res)
	}
	// Nothing on stdin: refused, nothing sent.
	res = clitest.AgainstStubs(fa).Run(t, "namespace", "add-key", "ci", "deploy")
	if res.Code != cmdutil.ExitUsage || !strings.Contains(res.Stderr, "--key-file") || fa.Count("POST", "/auth/namespaces/ci/keys") != 0 {
		t.Fatal(res)
	}
}

func TestNamespaceAddKeyFromFileWithExpiry(t *testing.T) {
	path := t.TempDir() + "/deploy.key"
	clitest.WriteFile(t, path, keySecret+"\n")

	// A 2026 server (its root page advertises generated-key-secrets) takes
	// an expiry.
	fa := clitest.NewStubs(t)
	fa.Root(clitest.ReadGolden(t, "sf2026/root.html"))
	fa.Reply("POST", "/auth/namespaces/ci/keys", 200, `"deploy"`)
	res := clitest.AgainstStubs(fa).Run(t, "namespace", "add-key", "ci", "deploy", "--key-file", path, "--expiry", "2099-01-01T00:00:00Z", "-o", "json")
	if res.Code != 0 || !strings.Contains(res.Stdout, `"expiry": 4070908800`) {
		t.Fatal(res)
	}
	var body map[string]any
	_ = json.Unmarshal([]byte(fa.LastBody("POST", "/auth/namespaces/ci/keys")), &body)
	if body["key"] != keySecret || body["expiry"] != 4070908800.0 {
		t.Errorf("body = %v", body)
	}

	// A 2024 server does not: said before anything is sent.
	fa = clitest.NewStubs(t)
	fa.Root(clitest.ReadGolden(t, "sf2024/root.html"))
	res = clitest.AgainstStubs(fa).Run(t, "namespace", "add-key", "ci", "deploy", "--key-file", path, "--expiry", "720h")
	if res.Code != cmdutil.ExitFailure || !strings.Contains(res.Stderr, "does not support keys with an expiry") || fa.Count("POST", "/auth/namespaces/ci/keys") != 0 {
		t.Fatal(res)
	}
}

func TestNamespaceUpdateKeyUsesEachGenerationsRoute(t *testing.T) {
	for _, tc := range []struct {
		root, method, path string
	}{
		// 2026: PUT .../keys/{name}; 2024, whose PUT never worked: POST.
		{"sf2026/root.html", "PUT", "/auth/namespaces/ci/keys/deploy"},
		{"sf2024/root.html", "POST", "/auth/namespaces/ci/keys"},
	} {
		fa := clitest.NewStubs(t)
		fa.Root(clitest.ReadGolden(t, tc.root))
		fa.Reply(tc.method, tc.path, 200, `"deploy"`)
		r := clitest.AgainstStubs(fa)
		r.Stdin = keySecret
		if res := r.Run(t, "namespace", "update-key", "ci", "deploy"); res.Code != 0 || strings.Contains(res.Stdout, keySecret) {
			t.Fatalf("%s: %s", tc.root, res)
		}
		if !strings.Contains(fa.LastBody(tc.method, tc.path), keySecret) {
			t.Errorf("%s: the new secret was not sent", tc.root)
		}
	}
}

func TestNamespaceDeleteKey(t *testing.T) {
	fa := clitest.NewStubs(t)
	fa.Reply("DELETE", "/auth/namespaces/ci/keys/nosuch", 404, `{"error": "key name not found in namespace", "status": 404}`)
	res := clitest.AgainstStubs(fa).Run(t, "namespace", "delete-key", "ci", "nosuch")
	if res.Code != cmdutil.ExitNotFound {
		t.Fatal(res)
	}
	fa.Reply("DELETE", "/auth/namespaces/ci/keys/deploy", 200, "null")
	if res := clitest.AgainstStubs(fa).Run(t, "namespace", "delete-key", "ci", "deploy"); res.Code != 0 || res.Stdout != "" {
		t.Fatal(res)
	}
}

func TestNamespaceMetadata(t *testing.T) {
	fa := clitest.NewStubs(t)
	fa.Reply("GET", "/auth/namespaces/ns1/metadata", 200, `{"owner": "team-a", "tags": ["ci", "prod"]}`)
	fa.Reply("PUT", "/auth/namespaces/ns1/metadata/tags", 200, "null")
	fa.Reply("DELETE", "/auth/namespaces/ns1/metadata/owner", 200, "null")
	r := clitest.AgainstStubs(fa)
	if res := r.Run(t, "namespace", "get-metadata", "ns1"); res.Code != 0 || res.Stdout != "owner\tteam-a\ntags\t[\"ci\",\"prod\"]\n" {
		t.Fatal(res)
	}
	if res := r.Run(t, "namespace", "get-metadata", "ns1", "--jq", ".tags[1]"); res.Code != 0 || res.Stdout != "prod\n" {
		t.Fatal(res)
	}
	// tags is a JSON list, as create's -m reads it.
	if res := r.Run(t, "namespace", "set-metadata", "ns1", "tags", `["a","b"]`); res.Code != 0 {
		t.Fatal(res)
	}
	if got := fa.LastBody("PUT", "/auth/namespaces/ns1/metadata/tags"); got != `{"value":["a","b"]}` {
		t.Errorf("body = %s", got)
	}
	if res := r.Run(t, "namespace", "set-metadata", "ns1", "tags", `not-json`); res.Code != cmdutil.ExitUsage {
		t.Fatal(res)
	}
	if res := r.Run(t, "namespace", "delete-metadata", "ns1", "owner"); res.Code != 0 || fa.Count("DELETE", "/auth/namespaces/ns1/metadata/owner") != 1 {
		t.Fatal(res)
	}
}

func TestNamespaceTrust(t *testing.T) {
	fa := clitest.NewStubs(t)
	fa.Reply("POST", "/auth/namespaces/ci/trust", 200, `{"name":"ci","state":"created","metadata":{},"version":5,"keys":["deploy"],"trust":{"full":["system","ops"]}}`)
	fa.Reply("DELETE", "/auth/namespaces/ci/trust/ops", 200, `{"name":"ci","state":"created","metadata":{},"version":5,"keys":["deploy"],"trust":{"full":["system"]}}`)
	r := clitest.AgainstStubs(fa)
	if res := r.Run(t, "namespace", "add-trust", "ci", "ops"); res.Code != 0 || !strings.Contains(res.Stdout, "trust\tsystem,ops\n") {
		t.Fatal(res)
	}
	if got := fa.LastBody("POST", "/auth/namespaces/ci/trust"); got != `{"external_namespace":"ops"}` {
		t.Errorf("body = %s", got)
	}
	if res := r.Run(t, "namespace", "remove-trust", "ci", "ops"); res.Code != 0 || !strings.Contains(res.Stdout, "trust\tsystem\n") {
		t.Fatal(res)
	}
}

func TestNamespaceCleanNeedsConfirmation(t *testing.T) {
	fa := clitest.NewStubs(t)
	fa.Reply("DELETE", "/instances", 200, `["6a4e1a57-1b43-4cd8-9d39-9a4c0b0d1f01"]`)
	fa.Reply("DELETE", "/networks", 200, `["2f1e0d9c-1111-4222-8333-444455556601"]`)

	// Piped, without --yes: refused, nothing deleted.
	res := clitest.AgainstStubs(fa).Run(t, "namespace", "clean", "ns1")
	if res.Code != cmdutil.ExitUsage || !strings.Contains(res.Stderr, "--yes") || fa.Count("DELETE", "/instances") != 0 {
		t.Fatal(res)
	}
	// At a terminal, anything but "yes" is no.
	tty := clitest.AgainstStubs(fa)
	tty.Tty, tty.Stdin = true, "no\n"
	if res := tty.Run(t, "namespace", "clean", "ns1"); res.Code != cmdutil.ExitUsage || !strings.Contains(res.Stderr, "Type yes") || fa.Count("DELETE", "/instances") != 0 {
		t.Fatal(res)
	}
	// (--async continue: the stubs do not delete what DELETE /instances
	// names; waiting for the namespace to empty is the sim cluster test's.)
	tty.Stdin = "yes\n"
	if res := tty.Run(t, "namespace", "clean", "ns1", "--async", "continue"); res.Code != 0 || !strings.Contains(res.Stdout, "6a4e1a57") {
		t.Fatal(res)
	}
	res = clitest.AgainstStubs(fa).Run(t, "namespace", "clean", "ns1", "--yes", "-o", "json", "--async", "continue")
	if res.Code != 0 || !strings.Contains(res.Stdout, `"instances": [`) {
		t.Fatal(res)
	}
	// Instances first, then networks with clean_wait, as sf-client.
	if got := fa.LastBody("DELETE", "/networks"); got != `{"confirm":true,"namespace":"ns1","clean_wait":true}` {
		t.Errorf("networks body = %s", got)
	}
}

func TestNamespaceCompletesNames(t *testing.T) {
	f, out, _ := clitest.CompletionTestFactory(t)
	srv := clitest.AgainstStubs(clitest.NewFixtureStubs(t))
	f.Client = func() (*client.Client, error) {
		return client.New(client.Options{APIURL: srv.Url, Namespace: clitest.TestNamespace, Key: clitest.TestKey})
	}
	names, directive := clitest.RunComplete(t, f, out, "namespace", "add-key", "")
	if strings.Join(names, " ") != "ns1 system" || directive != clitest.NoFileCompLine {
		t.Fatalf("names %q directive %q", names, directive)
	}
}

// notEmptied is a namespace whose deletes are accepted but whose lists
// (the fake cloud's three instances and two networks) never empty.
func notEmptied(t *testing.T) *clitest.Stubs {
	fa := clitest.NewFixtureStubs(t)
	fa.Reply("DELETE", "/instances", 200, `["6a4e1a57-1b43-4cd8-9d39-9a4c0b0d1f01"]`)
	fa.Reply("DELETE", "/networks", 200, `[]`)
	return fa
}

// A clean that cannot empty the namespace within --timeout says what is
// left (exit 124), whatever --async is: the default pause forgives only
// its own 60 s budget, never a --timeout the user set (issue 28, item 14).
func TestNamespaceCleanWaitRunsOut(t *testing.T) {
	for _, async := range []string{"block", "pause"} {
		t.Run(async, func(t *testing.T) {
			// On the virtual clock: the ten seconds cost nothing.
			synctest.Test(t, func(t *testing.T) {
				fa := notEmptied(t)
				res := clitest.StubsInMemory(fa).Run(t, "namespace", "clean", "ns1", "--yes", "--async", async, "--timeout", "10s")
				if res.Code != cmdutil.ExitTimeout || !strings.Contains(res.Stderr, "namespace ns1 was not emptied within 10s (3 instances and 2 networks left)") {
					t.Fatal(res)
				}
			})
		})
	}
	// Without --timeout, pause runs out its 60 s and says so, exit 0:
	// the deadline's own words, as a still_waiting note (a JSON object
	// under -o json, where it was plain text).
	synctest.Test(t, func(t *testing.T) {
		fa := notEmptied(t)
		res := clitest.StubsInMemory(fa).Run(t, "namespace", "clean", "ns1", "--yes")
		if res.Code != 0 || !strings.HasSuffix(res.Stderr, "\nnamespace ns1 was not emptied within 1m0s (3 instances and 2 networks left)\n") {
			t.Fatal(res)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		fa := notEmptied(t)
		res := clitest.StubsInMemory(fa).Run(t, "namespace", "clean", "ns1", "--yes", "-o", "json")
		lines := strings.Split(strings.TrimSpace(res.Stderr), "\n")
		want := `{"event":"still_waiting","message":"namespace ns1 was not emptied within 1m0s (3 instances and 2 networks left)"}`
		if res.Code != 0 || lines[len(lines)-1] != want {
			t.Fatalf("stderr's last line %q\nwant %q\n%s", lines[len(lines)-1], want, res)
		}
	})
}
