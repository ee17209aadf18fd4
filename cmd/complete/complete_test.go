package complete_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
)

// completionCloud answers the calls completion makes, as a Shakenfist API would:
// a login, then lists that need the bearer token.
func completionCloud(t *testing.T, lists map[string]string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/auth" && r.Method == http.MethodPost {
			fmt.Fprint(w, `{"access_token": "tok"}`)
			return
		}
		if r.Header.Get("Authorization") != "Bearer tok" {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"error": "unauthorized", "status": 401}`)
			return
		}
		body, ok := lists[r.URL.Path]
		if !ok || r.Method != http.MethodGet {
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"error": "not found", "status": 404}`)
			return
		}
		fmt.Fprint(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

var completionCloudLists = map[string]string{
	"/instances": `[
		{"uuid": "u3", "name": "web-2", "state": "created", "power_state": "on", "node": "sf-2"},
		{"uuid": "u1", "name": "web-1", "state": "created", "power_state": "on", "node": "sf-1"},
		{"uuid": "u2", "name": "db-1", "state": "creating"},
		{"uuid": "u4", "name": "web-1", "state": "error"},
		{"uuid": "u5", "name": "evil\nname", "state": "created"},
		{"uuid": "u6", "name": "odd", "state": "created\twith\ttabs"},
		{"uuid": "u7", "name": "rtl\u202egnp.exe", "state": "created"},
		{"uuid": "u8", "name": "bidi", "state": "created\u202eno\u009b"}
	]`,
	"/networks": `[
		{"uuid": "n1", "name": "private", "netblock": "10.0.0.0/24", "state": "created"},
		{"uuid": "n2", "name": "dmz", "netblock": "192.168.1.0/24", "state": "created"}
	]`,
	"/nodes": `[
		{"uuid": "sf-2", "name": "sf-2", "state": "created", "version": 7, "is_hypervisor": true},
		{"name": "sf-1", "state": "created"}
	]`,
	"/auth/namespaces": `[{"name": "system"}, {"name": "ci"}]`,
}

func completionFactoryFor(t *testing.T, apiURL string) *cmdutil.Factory {
	t.Helper()
	f, _, _ := clitest.CompletionTestFactory(t)
	f.Client = func() (*client.Client, error) {
		return client.New(client.Options{APIURL: apiURL, Namespace: "ci", Key: "secret"})
	}
	return f
}

func completionNames(comps []cobra.Completion) []string {
	var out []string
	for _, c := range comps {
		name, _, _ := strings.Cut(c, "\t")
		out = append(out, name)
	}
	return out
}

func TestCompleteNamesFromTheAPI(t *testing.T) {
	srv, _ := completionCloud(t, completionCloudLists)
	f := completionFactoryFor(t, srv.URL)
	c := &cobra.Command{Use: "show"}
	tests := []struct {
		name       string
		fn         cobra.CompletionFunc
		args       []string
		toComplete string
		want       []string
	}{
		// Sorted, one entry per name, no name with a line break or a
		// bidirectional override (termtext's rule: it would show another
		// name than the one completed).
		{"instances", complete.InstanceNames(f), nil, "", []string{"bidi", "db-1", "odd", "web-1", "web-2"}},
		{"instances by prefix", complete.InstanceNames(f), nil, "web", []string{"web-1", "web-2"}},
		{"instances already given", complete.InstanceNames(f), []string{"web-1"}, "web", []string{"web-2"}},
		{"networks", complete.NetworkNames(f), nil, "", []string{"dmz", "private"}},
		{"nodes", complete.NodeNames(f), nil, "sf", []string{"sf-1", "sf-2"}},
		{"namespaces", complete.NamespaceNames(f), nil, "", []string{"ci", "system"}},
		{"no match", complete.NodeNames(f), nil, "zz", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			comps, directive := tt.fn(c, tt.args, tt.toComplete)
			if got := completionNames(comps); strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			if directive != cobra.ShellCompDirectiveNoFileComp {
				t.Errorf("directive %v: file names would be offered", directive)
			}
		})
	}
}

func TestCompletionDescriptions(t *testing.T) {
	srv, _ := completionCloud(t, completionCloudLists)
	f := completionFactoryFor(t, srv.URL)
	c := &cobra.Command{Use: "show"}
	comps, _ := complete.InstanceNames(f)(c, nil, "")
	want := map[string]string{
		"web-2": "web-2\tcreated, on, on sf-2",
		"db-1":  "db-1\tcreating",
		// Control characters from the server cannot break the line protocol.
		"odd": "odd\tcreated with tabs",
		// Nor reorder or obey what follows (termtext.Line, the one
		// sanitiser of terminal text).
		"bidi": "bidi\tcreated no ",
	}
	for _, comp := range comps {
		name, _, _ := strings.Cut(comp, "\t")
		if w, ok := want[name]; ok && comp != w {
			t.Errorf("%q, want %q", comp, w)
		}
		if strings.Count(comp, "\t") > 1 || strings.Contains(comp, "\n") {
			t.Errorf("candidate %q breaks the completion protocol", comp)
		}
	}
	comps, _ = complete.NodeNames(f)(c, nil, "sf-2")
	if len(comps) != 1 || comps[0] != "sf-2\tcreated, hypervisor" {
		t.Errorf("node candidate %q", comps)
	}
}

// Completion must never fail visibly: whatever goes wrong, no names and no
// file names.
func TestCompletionSilentOnFailure(t *testing.T) {
	c := &cobra.Command{Use: "show"}
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	refusing, _ := completionCloud(t, map[string]string{"/instances": `{"not": "a list"}`})
	cases := map[string]*cmdutil.Factory{
		"no client in the factory": func() *cmdutil.Factory { f, _, _ := clitest.CompletionTestFactory(t); return f }(),
		"client cannot be built": func() *cmdutil.Factory {
			f, _, _ := clitest.CompletionTestFactory(t)
			f.Client = func() (*client.Client, error) { return nil, errors.New("no API URL configured") }
			return f
		}(),
		"API unreachable":   completionFactoryFor(t, down.URL),
		"API answers badly": completionFactoryFor(t, refusing.URL),
	}
	for name, f := range cases {
		t.Run(name, func(t *testing.T) {
			comps, directive := complete.InstanceNames(f)(c, nil, "")
			if len(comps) != 0 || directive != cobra.ShellCompDirectiveNoFileComp {
				t.Errorf("got %q, %v; want nothing and no file names", comps, directive)
			}
		})
	}
}

func TestCompletionGivesUpAfterTwoSeconds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f, _, _ := clitest.CompletionTestFactory(t)
		hang := clitest.HangingTransport{Release: make(chan struct{})}
		// The call completion walks away from ends with the test.
		defer synctest.Wait()
		defer close(hang.Release)
		f.Client = func() (*client.Client, error) {
			return client.New(client.Options{APIURL: "http://sf.invalid", Namespace: "ci", Key: "k", Transport: hang})
		}
		start := time.Now()
		comps, directive := complete.InstanceNames(f)(&cobra.Command{Use: "show"}, nil, "")
		if waited := time.Since(start); waited != complete.Timeout {
			t.Errorf("gave up after %v, want %v", waited, complete.Timeout)
		}
		if len(comps) != 0 || directive != cobra.ShellCompDirectiveNoFileComp {
			t.Errorf("got %q, %v", comps, directive)
		}
	})
}

// An argument's completion offers names where the command takes one: at
// its position, at every position of a repeated word, and nowhere past
// the last word, where the API is not even asked.
func TestArgsCompleteOnlyTheirPositions(t *testing.T) {
	srv, calls := completionCloud(t, completionCloudLists)
	f := completionFactoryFor(t, srv.URL)
	one := builders.Args(&cobra.Command{Use: "show"}, "NAME", complete.InstanceNames(f))
	second := builders.Args(&cobra.Command{Use: "ping"}, "NETWORK NAME", nil, complete.InstanceNames(f))
	many := builders.Args(&cobra.Command{Use: "delete"}, "NAME...", complete.InstanceNames(f))
	offered := func(c *cobra.Command, args []string, typed string) string {
		t.Helper()
		comps, directive := c.ValidArgsFunction(c, args, typed)
		if directive != cobra.ShellCompDirectiveNoFileComp {
			t.Errorf("%s %q: directive %v, want no file names", c.Use, args, directive)
		}
		return strings.Join(completionNames(comps), " ")
	}

	if got := offered(one, nil, "w"); got != "web-1 web-2" {
		t.Errorf("first argument: %q", got)
	}
	if got := offered(one, nil, ""); got != "bidi db-1 odd web-1 web-2" {
		t.Errorf("first argument, nothing typed: %q", got)
	}
	before := calls.Load()
	if got := offered(one, []string{"web-1"}, ""); got != "" {
		t.Errorf("second argument of a one-name command: %q", got)
	}
	if got := offered(second, nil, ""); got != "" {
		t.Errorf("a position without completion: %q", got)
	}
	if calls.Load() != before {
		t.Error("asked the API although no argument there is a name")
	}
	if got := offered(second, []string{"net1"}, "w"); got != "web-1 web-2" {
		t.Errorf("second position: %q", got)
	}
	if got := offered(many, []string{"web-1", "db-1"}, "w"); got != "web-2" {
		t.Errorf("further arguments of a many-name command: %q", got)
	}
}

// The whole path a shell takes: shakectl __complete, global flags parsed,
// the API asked with them.
func TestCompleteNamespaceFlagThroughCobra(t *testing.T) {
	srv, _ := completionCloud(t, completionCloudLists)
	f, out, _ := clitest.CompletionTestFactory(t)
	f.Client = func() (*client.Client, error) {
		cfg, err := f.Config()
		if err != nil {
			return nil, err
		}
		return client.New(client.Options{APIURL: cfg.APIURL, Namespace: "system", Key: "k"})
	}
	got, directive := clitest.RunComplete(t, f, out, "instance", "list", "--api-url", srv.URL, "--namespace", "")
	if strings.Join(got, " ") != "ci system" || directive != clitest.NoFileCompLine {
		t.Errorf("--namespace <TAB> offers %q (%s)", got, directive)
	}
}
