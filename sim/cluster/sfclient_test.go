package cluster

import (
	"context"
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shakenfist/shakectl/internal/sfclienttest"
)

// The real sf-client (shakenfist/client-python 6c25293c, the 2024 command
// line, from the tree SHAKECTL_SFCLIENT_DIR names) against the 2024 simulator:
// its namespace and key commands must work as they do against a real 2024
// server, and fail where a real one fails (update-key).

type sfResult struct {
	code           int
	stdout, stderr string
}

func runSFClient(t *testing.T, sf sfclienttest.Client, url, ns, key string, args ...string) sfResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	cmd := sf.Command(ctx, t, url, ns, key, args...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := sfResult{stdout: stdout.String(), stderr: stderr.String()}
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("sf-client %v: %v", args, err)
		}
		res.code = ee.ExitCode()
	}
	return res
}

// Each sf-client run costs seconds of Python start-up on a small machine,
// so every command runs once and its effect is read back through the API.
func TestSFClientNamespaceCommands2024(t *testing.T) {
	sfc := sfclienttest.Find(t)
	t.Parallel()
	srv, c := startSim(t, nil) // Generation2024
	url := srv.URL()
	sf := func(args ...string) sfResult {
		t.Helper()
		return runSFClient(t, sfc, url, "system", "demo", args...)
	}
	ok := func(args ...string) string {
		t.Helper()
		r := sf(args...)
		if r.code != 0 {
			t.Fatalf("sf-client %v: exit %d\nstdout: %s\nstderr: %s", args, r.code, r.stdout, r.stderr)
		}
		return r.stdout
	}
	show := func(name string) map[string]any {
		t.Helper()
		a := c.do("GET", "/auth/namespaces/"+name, nil)
		if a.status != 200 {
			t.Fatalf("show %s: %d %s", name, a.status, a.raw)
		}
		return a.obj(t)
	}

	ok("namespace", "create", "team")
	c.do("POST", "/auth/namespaces", map[string]any{"namespace": "ops"})
	ok("namespace", "add-key", "team", "ci", "s3cret")
	c.do("POST", "/auth/namespaces/team/keys", map[string]any{"key_name": "spare", "key": "other"})
	var shown map[string]any
	if err := json.Unmarshal([]byte(ok("--json", "namespace", "show", "team")), &shown); err != nil {
		t.Fatal(err)
	}
	if shown["name"] != "team" || !slices.Equal(anyStrings(shown["keys"]), []string{"ci", "spare"}) {
		t.Errorf("namespace show team: %v", shown)
	}
	// The new key works: sf-client logs in as team with it, and team
	// sees only itself.
	r := runSFClient(t, sfc, url, "team", "s3cret", "--json", "namespace", "list")
	var list []map[string]any
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &list) != nil || len(list) != 1 || list[0]["name"] != "team" {
		t.Errorf("namespace list as team: exit %d %s %s", r.code, r.stdout, r.stderr)
	}
	ok("namespace", "delete-key", "team", "spare")
	if keys := anyStrings(show("team")["keys"]); !slices.Equal(keys, []string{"ci"}) {
		t.Errorf("keys after delete-key: %v", keys)
	}
	// update-key PUTs /auth/namespaces/team/keys, which a 2024 server
	// does not route for PUT (405): it fails there, and here, and the key
	// is unchanged.
	if r := sf("namespace", "update-key", "team", "ci", "new"); r.code == 0 {
		t.Errorf("update-key succeeded against 2024 (a real 2024 server refuses it): %s", r.stdout)
	}
	loginAs(t, c, "team", "s3cret")

	ok("namespace", "set-metadata", "team", "owner", "alice")
	if md := show("team")["metadata"].(map[string]any); md["owner"] != "alice" {
		t.Errorf("metadata after set-metadata: %v", md)
	}
	if out := ok("namespace", "get-metadata", "team"); !strings.Contains(out, "owner") || !strings.Contains(out, "alice") {
		t.Errorf("get-metadata: %q", out)
	}
	ok("namespace", "delete-metadata", "team", "owner")
	if md := show("team")["metadata"].(map[string]any); len(md) != 0 {
		t.Errorf("metadata after delete-metadata: %v", md)
	}

	var trust map[string]any
	if err := json.Unmarshal([]byte(ok("--json", "namespace", "add-trust", "team", "ops")), &trust); err != nil {
		t.Fatal(err)
	}
	if full := anyStrings(trust["trust"].(map[string]any)["full"]); !slices.Equal(full, []string{"system", "ops"}) {
		t.Errorf("add-trust: %v", trust)
	}
	ok("namespace", "remove-trust", "team", "ops")
	if full := anyStrings(show("team")["trust"].(map[string]any)["full"]); !slices.Equal(full, []string{"system"}) {
		t.Errorf("trust after remove-trust: %v", full)
	}

	// A namespace holding a network and an instance cannot be deleted
	// until it is cleaned.
	team := loginAs(t, c, "team", "s3cret")
	n := team.mustNetwork("net1", "10.9.0.0/24")
	team.mustCreate("web1", 1, 1024, 10, map[string]any{"network": []map[string]any{{"network_uuid": n["uuid"]}}})
	if r := sf("namespace", "delete", "team"); r.code == 0 || !strings.Contains(r.stdout+r.stderr, "you cannot delete a namespace with instances") {
		t.Errorf("delete of a namespace with an instance: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	ok("namespace", "clean", "--confirm", "--namespace", "team")
	ok("namespace", "delete", "team")
	if a := c.do("GET", "/auth/namespaces/team", nil); a.status != 404 {
		t.Errorf("team after delete: %d %s", a.status, a.raw)
	}
}

func anyStrings(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, x := range list {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}
