package main

// The file cases, names a server chooses that must never become paths and
// files changed under a download, behind two API URL prefixes (the client
// joins its paths to the API URL's, so one proxy serves every case):
//
//   - /blobname/CASE: a cluster whose blob list holds one more blob, and
//     whose artifacts' newest version is that blob, named blobNames[CASE]
//     ("../../PWNED1" made backup create write ./PWNED1); its view and
//     data are answered here, for a client that would fetch them.
//   - /held: the cluster as it is, except that a blob's data is held
//     back until GET /gate/release, once GET /gate/arm has closed the
//     gate: the script drops a file or a symbolic link at DEST, or starts
//     a second download, while a download is under way, then lets it end.

import (
	"bytes"
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httputil"
	"strconv"
	"strings"
	"sync"
)

var blobNames = map[string]string{
	"dotdot":   "../../PWNED1",
	"deeper":   "../../../victim/PWNED-newfile",
	"slash":    "sub/PWNED2",
	"nul":      "PWNED\x00x",
	"newline":  "PWNED\nerror: all good",
	"esc":      "\x1b]0;PWNED\x07\x1b[2K\rFAKE: all good",
	"absolute": "/PWNED-abs",
	"long":     strings.Repeat("PWNED", 60),
	"notauuid": "PWNED3",
}

// hostileBlobData is the hostile blob's bytes: its size and sha512 are
// what the blob list says, so a client that does not check the name
// writes them.
const hostileBlobData = "PWNED: written outside the backup's folder\n"

// routeHeader carries a request's route from Rewrite to ModifyResponse.
const routeHeader = "X-Hostile-Route"

// fileRoutes answers the blob name's own routes and strips the prefixes.
type fileRoutes struct {
	next http.Handler
	gate *gate
}

// splitRoute returns the route ("blobname/dotdot", "held") and the path
// left, for a path under one of the prefixes.
func splitRoute(path string) (route, rest string, ok bool) {
	if rest, ok := strings.CutPrefix(path, "/held/"); ok {
		return "held", "/" + rest, true
	}
	after, ok := strings.CutPrefix(path, "/blobname/")
	if !ok {
		return "", "", false
	}
	c, rest, _ := strings.Cut(after, "/")
	if _, known := blobNames[c]; !known {
		return "", "", false
	}
	return "blobname/" + c, "/" + rest, true
}

func (f *fileRoutes) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/gate/arm":
		f.gate.arm()
		return
	case "/gate/release":
		f.gate.release()
		return
	}
	route, rest, ok := splitRoute(r.URL.Path)
	if !ok {
		f.next.ServeHTTP(w, r)
		return
	}
	if c, ok := strings.CutPrefix(route, "blobname/"); ok {
		name := blobNames[c]
		switch rest {
		case "/blobs/" + name:
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(hostileBlob(name))
			return
		case "/blobs/" + name + "/data":
			w.Header().Set("Content-Type", "application/octet-stream")
			io.WriteString(w, hostileBlobData)
			return
		}
	}
	// The rest goes upstream, the route in a header for ModifyResponse;
	// the path is set in Rewrite from it (a ServeMux would have cleaned
	// "..").
	r.Header.Set(routeHeader, route)
	f.next.ServeHTTP(w, r)
}

func hostileBlob(name string) map[string]any {
	sum := sha512.Sum512([]byte(hostileBlobData))
	return map[string]any{"uuid": name, "state": "created", "size": len(hostileBlobData),
		"sha512": hex.EncodeToString(sum[:]), "metadata": map[string]any{}, "version": 6}
}

// rewriteRoute strips a route's prefix from the request sent upstream.
func rewriteRoute(r *httputil.ProxyRequest) {
	route := r.In.Header.Get(routeHeader)
	if route == "" {
		return
	}
	r.Out.Header.Del(routeHeader)
	r.Out.Header.Set(routeHeader, route) // for ModifyResponse; the sim ignores it
	_, rest, _ := splitRoute(r.In.URL.Path)
	r.Out.URL.Path, r.Out.URL.RawPath = rest, ""
	if _, restRaw, ok := splitRoute(r.In.URL.EscapedPath()); ok && restRaw != rest {
		r.Out.URL.RawPath = restRaw
	}
}

// modifyRoute rewrites an upstream answer for its route: the hostile name
// added to the blob list and made every artifact's newest version, a held
// blob's data gated.
func (f *fileRoutes) modifyRoute(resp *http.Response, body []byte) (io.ReadCloser, []byte) {
	route := resp.Request.Header.Get(routeHeader)
	path := resp.Request.URL.Path
	if route == "held" && resp.Request.Method == http.MethodGet && strings.HasSuffix(path, "/data") {
		return io.NopCloser(&gatedReader{r: bytes.NewReader(body), wait: f.gate.waiter()}), body
	}
	c, ok := strings.CutPrefix(route, "blobname/")
	if !ok || resp.StatusCode != http.StatusOK {
		return nil, body
	}
	name := blobNames[c]
	switch {
	case path == "/blobs":
		var list []any
		if json.Unmarshal(body, &list) == nil {
			body, _ = json.Marshal(append(list, hostileBlob(name)))
		}
	case path == "/artifacts":
		var list []map[string]any
		if json.Unmarshal(body, &list) == nil {
			for _, a := range list {
				withHostileBlob(a, name)
			}
			body, _ = json.Marshal(list)
		}
	case strings.HasPrefix(path, "/artifacts/") && strings.Count(path, "/") == 2:
		var a map[string]any
		if json.Unmarshal(body, &a) == nil {
			withHostileBlob(a, name)
			body, _ = json.Marshal(a)
		}
	}
	return nil, body
}

// withHostileBlob makes the artifact's newest version the hostile blob.
func withHostileBlob(a map[string]any, name string) {
	index, _ := a["index"].(float64)
	blobs, _ := a["blobs"].(map[string]any)
	if blobs == nil {
		blobs = map[string]any{}
		a["blobs"] = blobs
	}
	blobs[strconv.Itoa(int(index))] = map[string]any{"uuid": name, "size": len(hostileBlobData), "depends_on": nil, "reference_count": 1}
	a["blob_uuid"] = name
}

// gate holds a blob's data back while armed.
type gate struct {
	mu   sync.Mutex
	open chan struct{} // closed when open
}

func newGate() *gate {
	g := &gate{open: make(chan struct{})}
	close(g.open)
	return g
}

func (g *gate) arm() {
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case <-g.open:
		g.open = make(chan struct{})
	default:
	}
}

func (g *gate) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case <-g.open:
	default:
		close(g.open)
	}
}

func (g *gate) waiter() <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.open
}

// gatedReader gives nothing until its gate opens.
type gatedReader struct {
	r    io.Reader
	wait <-chan struct{}
}

func (g *gatedReader) Read(p []byte) (int, error) {
	<-g.wait
	return g.r.Read(p)
}
