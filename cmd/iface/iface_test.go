package iface_test

import (
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

const ifc = "b1981e81-b37a-4176-ba37-b61bc7208012" // the UUID sf2024/interface.json has

// The interface view as the 2024 server's source gives it
// (client/testdata/sf2024/interface.json), in every output format.
func TestInterfaceShowRecordedGolden(t *testing.T) {
	s := clitest.NewStubs(t)
	s.ReplyRecorded(t, "GET", "/interfaces/"+ifc, 200, "sf2024/interface.json")
	clitest.GoldenFormatsOf(t, clitest.AgainstStubs(s), "interface_show", "interface", "show", ifc)
}

// float posts, then shows the interface; a 507 from a full floating
// network is a permanent capacity refusal (exit 69), nothing shown.
func TestInterfaceFloat(t *testing.T) {
	s := clitest.NewStubs(t)
	s.Reply("POST", "/interfaces/"+ifc+"/float", 200, "null\n")
	s.ReplyRecorded(t, "GET", "/interfaces/"+ifc, 200, "sf2024/interface.json")
	res := clitest.AgainstStubs(s).Run(t, "interface", "float", ifc, "--jq", ".ipv4")
	if res.Code != 0 || res.Stdout != "10.0.0.6\n" {
		t.Fatal(res)
	}
	s = clitest.NewStubs(t)
	s.Reply("POST", "/interfaces/"+ifc+"/float", 507, `{"error": "No free addresses on network", "status": 507}`)
	res = clitest.AgainstStubs(s).Run(t, "interface", "float", ifc)
	if res.Code != cmdutil.ExitCapacityPermanent || res.Stdout != "" || !strings.Contains(res.Stderr, "No free addresses on network") {
		t.Fatal(res)
	}
}

// Another namespace's interface is the server's 404: exit 5.
func TestInterfaceShowNotFound(t *testing.T) {
	s := clitest.NewStubs(t)
	s.Reply("GET", "/interfaces/"+ifc, 404, `{"error": "interface not found", "status": 404}`)
	if res := clitest.AgainstStubs(s).Run(t, "interface", "show", ifc); res.Code != cmdutil.ExitNotFound {
		t.Fatal(res)
	}
}

// TAB completes the UUIDs of the interfaces of the namespace's
// instances, from one instance list, each described by its instance and
// addresses.
func TestInterfaceUUIDsComplete(t *testing.T) {
	s := clitest.NewStubs(t)
	s.Reply("GET", "/instances", 200, string(clitest.JoinRaw(clitest.FixtureInstances)))
	res := clitest.AgainstStubs(s).Run(t, "__complete", "interface", "float", "8d2")
	if res.Code != 0 || !strings.HasPrefix(res.Stdout, "8d2f4b9e-0c1a-4e55-9b7e-1f2a3b4c5d61\tweb1, 10.0.0.5, 192.168.1.20\n") {
		t.Fatal(res)
	}
	if n := s.Count("GET", "/instances"); n != 1 {
		t.Errorf("%d instance lists", n)
	}
}

// defloat and the metadata verbs against the 2024 handlers' answers
// (interface.py @da448b1a: each returns None, 200 null): defloat prints
// nothing; set-metadata sends {"value"}; delete-metadata a bare DELETE; a
// missing key is the server's 400, exit 1.
func TestInterfaceDefloatAndMetadataRecorded(t *testing.T) {
	s := clitest.NewStubs(t)
	s.Root(clitest.ReadGolden(t, "sf2024/root.html"))
	s.Reply("POST", "/interfaces/"+ifc+"/defloat", 200, "null\n")
	s.Reply("PUT", "/interfaces/"+ifc+"/metadata/role", 200, "null\n")
	s.Reply("DELETE", "/interfaces/"+ifc+"/metadata/role", 200, "null\n")
	r := clitest.AgainstStubs(s)
	if res := r.Run(t, "interface", "defloat", ifc); res.Code != 0 || res.Stdout != "" {
		t.Fatal(res)
	}
	if res := r.Run(t, "interface", "set-metadata", ifc, "role", "frontend"); res.Code != 0 || s.LastBody("PUT", "/interfaces/"+ifc+"/metadata/role") != `{"value":"frontend"}` {
		t.Fatal(res)
	}
	if res := r.Run(t, "interface", "delete-metadata", ifc, "role"); res.Code != 0 || res.Stdout != "" {
		t.Fatal(res)
	}
	s = clitest.NewStubs(t)
	s.Reply("POST", "/interfaces/"+ifc+"/defloat", 404, `{"error": "interface not found", "status": 404}`)
	if res := clitest.AgainstStubs(s).Run(t, "interface", "defloat", ifc); res.Code != cmdutil.ExitNotFound {
		t.Fatal(res)
	}
}
