package cluster

import (
	"bufio"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
)

// The artifact, blob, label and upload route tables of the two server
// generations, recorded from their app.py (client/testdata/sf2024/
// routes.txt @da448b1a, sf2026/routes.txt from the 2026 public copy, code
// index id 59153739580; SOURCES.md), walked against the simulator.

type fixtureRoute struct {
	methods []string
	path    string // as app.py spells it, converters included
}

// key is the route without its converters: the same route in both
// generations whatever its segments' types.
func (r fixtureRoute) key() string { return converterPrefix.ReplaceAllString(r.path, "<") }

var (
	converterPrefix = regexp.MustCompile(`<[a-z]+:`)
	pathVariable    = regexp.MustCompile(`<(?:([a-z]+):)?([a-z_]+)>`)
)

func readRouteFixture(t *testing.T, gen string) []fixtureRoute {
	t.Helper()
	f, err := os.Open("../../client/testdata/sf" + gen + "/routes.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []fixtureRoute
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		methods, path, ok := strings.Cut(line, " ")
		if !ok || !strings.HasPrefix(path, "/") {
			t.Fatalf("routes.txt of %s: bad line %q", gen, line)
		}
		out = append(out, fixtureRoute{methods: strings.Split(methods, ","), path: path})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) < 20 {
		t.Fatalf("routes.txt of %s holds %d routes: the fixture is cut short", gen, len(out))
	}
	return out
}

// concrete fills a route's variables with values the simulator holds
// nothing for (so the handler's own 404 or 400 answers, not the router's):
// an int converter gets digits, a path converter a value with a slash.
func concrete(path string) string {
	return pathVariable.ReplaceAllStringFunc(path, func(v string) string {
		m := pathVariable.FindStringSubmatch(v)
		switch conv, name := m[1], m[2]; {
		case conv == "int" || name == "offset" || name == "version_id":
			return "7"
		case conv == "path":
			return "ci/golden"
		case name == "algorithm":
			return "sha512"
		case strings.HasSuffix(name, "_uuid") || strings.HasSuffix(name, "_ref"):
			return "0b4fd3a9-6c1e-4f0e-9e3a-5b1f3c2d7e11"
		default:
			return "x" + name
		}
	})
}

// unrouted says an answer is the router's, not a handler's: Werkzeug's
// HTML 404 or Flask-RESTful's 405 for a method the route lacks.
func unrouted(a answer) bool {
	return (a.status == http.StatusNotFound && strings.HasPrefix(a.header.Get("Content-Type"), "text/html")) ||
		a.status == http.StatusMethodNotAllowed
}

func TestRouteTablesOfBothGenerations(t *testing.T) {
	tables := map[string][]fixtureRoute{
		Generation2024: readRouteFixture(t, Generation2024),
		Generation2026: readRouteFixture(t, Generation2026),
	}
	other := map[string]string{Generation2024: Generation2026, Generation2026: Generation2024}
	for gen, routes := range tables {
		t.Run(gen, func(t *testing.T) {
			_, c := startSim(t, func(cfg *Config) { cfg.Generation = gen })
			own := map[string]bool{}
			for _, r := range routes {
				own[r.key()] = true
				for _, m := range r.methods {
					a := c.do(m, concrete(r.path), nil)
					if unrouted(a) {
						t.Errorf("%s %s (%s): the simulator does not route it: %d %s", m, r.path, concrete(r.path), a.status, a.raw)
					}
				}
			}
			for _, r := range tables[other[gen]] {
				if own[r.key()] {
					continue
				}
				for _, m := range r.methods {
					a := c.do(m, concrete(r.path), nil)
					if a.status != http.StatusNotFound || !strings.Contains(string(a.raw), "<title>404 Not Found</title>") {
						t.Errorf("%s %s is only a %s route, yet the %s simulator answers %d %s", m, r.path, other[gen], gen, a.status, a.raw)
					}
				}
			}
		})
	}
}

// TestRouteTablesDiffer pins what the comparison found, so a fixture
// edited by mistake (a route dropped from both) is noticed.
func TestRouteTablesDiffer(t *testing.T) {
	keys := func(gen string) map[string]bool {
		out := map[string]bool{}
		for _, r := range readRouteFixture(t, gen) {
			out[r.key()] = true
		}
		return out
	}
	old, cur := keys(Generation2024), keys(Generation2026)
	var added, removed []string
	for k := range cur {
		if !old[k] {
			added = append(added, k)
		}
	}
	for k := range old {
		if !cur[k] {
			removed = append(removed, k)
		}
	}
	want := map[string]bool{"/artifacts/<artifact_ref>/clusteroperations": true, "/blobs/<blob_uuid>/events": true, "/blobs/<blob_uuid>/checksum/<algorithm>": true}
	if len(removed) != 0 || len(added) != len(want) {
		t.Fatalf("2026 adds %v and removes %v; want it to add exactly %v", added, removed, want)
	}
	for _, k := range added {
		if !want[k] {
			t.Errorf("unexpected 2026 route %s", k)
		}
	}
}

// TestTruncateOffsetConverter: 2026's <int:offset> makes a non-numeric
// offset the router's HTML 404, before the token is looked at; 2024's bare
// <offset> reaches the handler, whose int() raises: a 500.
func TestTruncateOffsetConverter(t *testing.T) {
	both(t, func(t *testing.T, gen string) {
		_, c := startSim(t, func(cfg *Config) { cfg.Generation = gen })
		u := c.do("POST", "/upload", nil).obj(t)["uuid"].(string)
		nullBody(t, c.do("POST", "/upload/"+u+"/truncate/0", nil))
		for _, off := range []string{"ten", "-1", "1.5"} {
			a := c.do("POST", "/upload/"+u+"/truncate/"+off, nil)
			if gen == Generation2026 {
				if a.status != http.StatusNotFound || !strings.HasPrefix(a.header.Get("Content-Type"), "text/html") {
					t.Errorf("2026 truncate/%s: %d %s, want the HTML 404", off, a.status, a.raw)
				}
				// Unrouted whatever the token or method.
				if b := c.do("GET", "/upload/"+u+"/truncate/"+off, nil, "Authorization", ""); b.status != http.StatusNotFound {
					t.Errorf("2026 GET truncate/%s without a token: %d", off, b.status)
				}
				continue
			}
			wantError(t, a, http.StatusInternalServerError, "server error")
		}
		if gen == Generation2024 {
			wantError(t, c.do("POST", "/upload/"+u+"/truncate/ten", nil), 500, "invalid literal for int() with base 10: 'ten'")
		}
		// An unknown upload with a numeric offset is the handler's JSON 404.
		wantError(t, c.do("POST", "/upload/0b4fd3a9-6c1e-4f0e-9e3a-5b1f3c2d7e11/truncate/3", nil), 404, "upload not found")
	})
}
