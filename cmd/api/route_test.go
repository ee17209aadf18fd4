package api_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/cmd/clitest"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// flask404 is the page Flask (and so the Shakenfist API, and sim cluster)
// answers for a route it does not have.
const flask404 = "<!doctype html>\n<html lang=en>\n<title>404 Not Found</title>\n<h1>Not Found</h1>\n"

// Issue 28, item 13: "api GET /nosuch" exited 1 although api --help says a
// 404 exits 5, and its hint blamed the API URL. When the API itself
// answered (the login worked), it is a not found about the path.
func TestAPIUnknownPathExits5AndSpeaksOfThePath(t *testing.T) {
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/auth" {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"access_token": "`+clitest.TestToken+`"}`)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, flask404)
	}))
	t.Cleanup(api.Close)
	res := clitest.CmdRun{Url: api.URL}.Run(t, "api", "GET", "/nosuch")
	if res.Code != cmdutil.ExitNotFound || !strings.Contains(res.Stderr, "has no route GET /nosuch") || strings.Contains(res.Stderr, "not a Shakenfist API") {
		t.Errorf("want exit 5 and a hint about the path:\n%s", res)
	}

	// A URL that is not an API at all (its login is the HTML 404) is still
	// told to check the API URL, and is not a not found.
	notAPI := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, flask404)
	}))
	t.Cleanup(notAPI.Close)
	res = clitest.CmdRun{Url: notAPI.URL}.Run(t, "api", "GET", "/nosuch")
	if res.Code == cmdutil.ExitNotFound || strings.Contains(res.Stderr, "has no route") {
		t.Errorf("a URL that is not the API is not a missing path:\n%s", res)
	}
}
