package root_test

import (
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// Hints come from what happened: the route, the status and the server's
// text (issue 40, item 11). Each answer here is the real 2024 server's
// (client/testdata/sf2024/recorded, SOURCES.md); before, a 404 "artifact
// not found" from share, unshare or delete-metadata hinted at "the BASE of
// -d SIZE@BASE" (a flag of instance create only), a 403 about the
// object's state said "the key is not allowed to do that", and a 401 from
// an admin route after a login that succeeded said "the namespace and key
// were refused".
func TestHintsFromTheRecordedAnswers(t *testing.T) {
	for _, tc := range []struct {
		name         string
		key          string // the namespace authenticated to
		method, path string
		recorded     string
		args         []string
		code         int
		stderr       string
		requests     int // of method path; 0 = 1
		logins       int // 0 = 1
	}{
		{name: "unshare of an unknown artifact", key: "system", method: "POST", path: "/artifacts/nosuch/unshare", recorded: "art-unshare-404.http",
			args: []string{"artifact", "unshare", "nosuch"}, code: cmdutil.ExitNotFound,
			stderr: "error: POST /artifacts/nosuch/unshare: 404 Not Found: artifact not found\nhint: no artifact of yours, or shared with you, has that name or UUID; \"shakectl artifact list\" shows them\n"},
		{name: "share of an unknown artifact", key: "system", method: "POST", path: "/artifacts/nosuch/share", recorded: "art-share-404.http",
			args: []string{"artifact", "share", "nosuch"}, code: cmdutil.ExitNotFound,
			stderr: "error: POST /artifacts/nosuch/share: 404 Not Found: artifact not found\nhint: no artifact of yours, or shared with you, has that name or UUID; \"shakectl artifact list\" shows them\n"},
		{name: "delete-metadata of an unknown artifact", key: "system", method: "DELETE", path: "/artifacts/nosuch/metadata/owner", recorded: "art-delete-metadata-404.http",
			args: []string{"artifact", "delete-metadata", "nosuch", "owner"}, code: cmdutil.ExitNotFound,
			stderr: "error: DELETE /artifacts/nosuch/metadata/owner: 404 Not Found: artifact not found\nhint: no artifact of yours, or shared with you, has that name or UUID; \"shakectl artifact list\" shows them\n"},
		{name: "unshare of an artifact not shared", key: "system", method: "POST", path: "/artifacts/debian:11/unshare", recorded: "art-unshare-403.http",
			args: []string{"artifact", "unshare", "debian:11"}, code: cmdutil.ExitAuth,
			stderr: "error: POST /artifacts/debian:11/unshare: 403 Forbidden: artifact not shared\nhint: the artifact is not shared, so there is nothing to unshare; \"shakectl artifact show ARTIFACT\" shows whether it is\n"},
		{name: "share of another namespace's artifact", key: "system", method: "POST", path: "/artifacts/13c9723c-d10a-414b-a485-0baf6ccf7372/share", recorded: "art-share-403.http",
			args: []string{"artifact", "share", "13c9723c-d10a-414b-a485-0baf6ccf7372"}, code: cmdutil.ExitAuth,
			stderr: "error: POST /artifacts/13c9723c-d10a-414b-a485-0baf6ccf7372/share: 403 Forbidden: only artifacts in the system namespace can be shared\nhint: only an artifact of the system namespace can be shared, and this one belongs to another namespace, whichever key asks\n"},
		{name: "delete-routed", key: "system", method: "DELETE", path: "/networks/net1/route/192.168.20.84", recorded: "net-delete-routed-403.http",
			args: []string{"network", "delete-routed", "net1", "192.168.20.84"}, code: cmdutil.ExitAuth,
			stderr: "error: DELETE /networks/net1/route/192.168.20.84: 403 Forbidden: address not routed by this network\nhint: the server says this network does not route that address: \"shakectl network addresses NETWORK\" lists what it routes (a 2024 server answers this for every routed address: its delete-routed compares the address's owner wrongly, so none can be deleted there)\n"},
		// The ci key logs in, is refused, logs in again (accepted) and
		// is refused again: the key is good, the route is admin only.
		{name: "an admin route with another namespace's key", key: "ci", method: "GET", path: "/admin/locks", recorded: "admin-locks-401.http",
			args: []string{"admin", "lock", "list"}, code: cmdutil.ExitAuth, requests: 2, logins: 2,
			stderr: "error: GET /admin/locks: 401 Unauthorized: unauthorized\nhint: the namespace and key were accepted at login, but GET /admin/locks is for the system namespace's key only (an admin route): use that key\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := clitest.NewStubsAs(t, tc.key)
			s.Root(clitest.ReadGolden(t, "sf2024/root.html"))
			s.ReplyRecordedAnswer(t, tc.method, tc.path, "sf2024/recorded/"+tc.recorded)
			res := clitest.AgainstStubs(s).As(tc.key).Run(t, tc.args...)
			if res.Code != tc.code || res.Stdout != "" || res.Stderr != tc.stderr {
				t.Errorf("%s\nwant exit %d, stderr\n%q", res, tc.code, tc.stderr)
			}
			if want := max(tc.requests, 1); s.Count(tc.method, tc.path) != want {
				t.Errorf("%d requests, want %d", s.Count(tc.method, tc.path), want)
			}
			if want := max(tc.logins, 1); s.Logins() != want {
				t.Errorf("%d logins, want %d", s.Logins(), want)
			}
		})
	}
	// A key refused at login is still told to check its settings.
	s := clitest.NewStubsAs(t, "ci")
	r := clitest.AgainstStubs(s).As("ci")
	r.Env["SHAKENFIST_KEY"] = "not-the-key"
	res := r.Run(t, "admin", "lock", "list")
	if res.Code != cmdutil.ExitAuth || res.Stderr != "error: POST /auth: 401 Unauthorized: unauthorized\nhint: the namespace and key were refused: set SHAKENFIST_API_URL, SHAKENFIST_NAMESPACE and SHAKENFIST_KEY, pass --api-url/--namespace, or write api-url, namespace and key to the config file (--config, SHAKECTL_CONFIG, else ~/.config/shakectl/config.yaml; mode 600)\n" {
		t.Errorf("%s", res)
	}
	// instance create's own 404s keep naming its flags: there the
	// missing artifact is the disk's base (POST /instances, the route of
	// no other command).
	s = clitest.NewStubs(t)
	s.Reply("POST", "/instances", 404, `{"error": "artifact not found", "status": 404}`)
	res = clitest.AgainstStubs(s).Run(t, "instance", "create", "web1", "1", "1024", "-d", "8@nosuch")
	if want := "error: POST /instances: 404 Not Found: artifact not found\nhint: the disk's base image (label or artifact) was not found; check the BASE of -d SIZE@BASE\n"; res.Code != cmdutil.ExitNotFound || res.Stderr != want {
		t.Errorf("%s\nwant %q", res, want)
	}
}
