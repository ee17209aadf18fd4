package root_test

import (
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/clitest"
)

// Every operator verb completes the names of what it acts on from the API,
// at its own argument's position, and nothing past its arguments.
func TestOperatorCommandsCompleteNames(t *testing.T) {
	s := clitest.NewStubs(t)
	s.Offer("GET", "/instances", 200, string(clitest.JoinRaw(clitest.FixtureInstances)))
	s.Offer("GET", "/networks", 200, string(clitest.JoinRaw(clitest.FixtureNetworks)))
	s.Offer("GET", "/nodes", 200, string(clitest.JoinRaw(clitest.FixtureNodes)))
	s.Offer("GET", "/auth/namespaces", 200, string(clitest.JoinRaw(clitest.FixtureNamespaces)))
	s.Offer("GET", "/artifacts", 200, "["+clitest.ReadGolden(t, "sf2024/artifact.json")+"]")
	srv := clitest.AgainstStubs(s)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"instance", "consoledata", ""}, "batch db-with-a-long-name web1"},
		{[]string{"instance", "snapshot", ""}, "batch db-with-a-long-name web1"},
		{[]string{"instance", "set-metadata", ""}, "batch db-with-a-long-name web1"},
		{[]string{"instance", "set-metadata", "web1", ""}, ""},
		{[]string{"instance", "show", "--snapshots", ""}, "batch db-with-a-long-name web1"},
		{[]string{"network", "events", ""}, "isolated net1"},
		{[]string{"network", "ping", ""}, "isolated net1"},
		{[]string{"network", "ping", "net1", ""}, ""},
		{[]string{"network", "instances", "n"}, "net1"},
		{[]string{"network", "addresses", ""}, "isolated net1"},
		{[]string{"network", "delete-metadata", ""}, "isolated net1"},
		{[]string{"node", "events", ""}, "db0 node1 node2"},
		{[]string{"node", "resources", ""}, "db0 node1 node2"},
		{[]string{"node", "resources", "node1", ""}, ""},
		{[]string{"namespace", "show", ""}, "ns1 system"},
		{[]string{"namespace", "add-trust", "ns1", ""}, "system"},
		{[]string{"namespace", "claim", "list", ""}, "ns1 system"},
		{[]string{"instance", "delete-all", "--namespace", ""}, "ns1 system"},
		// One of -n/-f/-N is required (a flag group), so Cobra offers them
		// beside the names, and alone once the instance is given.
		{[]string{"instance", "add-interface", ""}, "--floated -f --network -n --networkspec -N batch db-with-a-long-name web1"},
		{[]string{"instance", "add-interface", "web1", ""}, "--floated -f --network -n --networkspec -N"},
		{[]string{"instance", "add-interface", "web1", "-n", ""}, "isolated net1"},
		{[]string{"instance", "add-interface", "web1", "--floated", "n"}, "net1"},
		{[]string{"node", "delete", ""}, "db0 node1 node2"},
		{[]string{"node", "delete", "node1", ""}, ""},
		// The instance of "execute INSTANCE -- COMMAND", not its command;
		// the artifact of "download ARTIFACT DEST".
		{[]string{"instance", "execute", ""}, "batch db-with-a-long-name web1"},
		{[]string{"instance", "execute", "web1", ""}, ""},
		{[]string{"instance", "execute", "web1", "--", ""}, ""},
		{[]string{"artifact", "download", ""}, "debian:11"},
		// Where no argument goes, or one no list names, nothing is
		// offered, not even the files of the current directory.
		{[]string{"instance", "list", ""}, ""},
		{[]string{"cluster-operation", "show", ""}, ""},
		{[]string{"context", "use", ""}, ""},
		{[]string{"completion", "bash", ""}, ""},
	} {
		f, out, _ := clitest.CompletionTestFactory(t)
		f.Client = func() (*client.Client, error) {
			return client.New(client.Options{APIURL: srv.Url, Namespace: clitest.TestNamespace, Key: clitest.TestKey})
		}
		names, directive := clitest.RunComplete(t, f, out, tc.args...)
		if strings.Join(names, " ") != tc.want || directive != clitest.NoFileCompLine {
			t.Errorf("%q: names %q directive %q, want %q", tc.args, names, directive, tc.want)
		}
	}
}
