package client_test

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/internal/httpstub"
	"github.com/shakenfist/shakectl/internal/syncbuf"
)

// The simulator's default key is "demo". Scrubbing it as a substring
// printed the network "sim-demo-net" as "sim-[redacted]-net" in errors and
// --debug lines; the key itself, echoed by a hostile server, must still be
// masked wherever it stands as a word (internal/redact.Secrets).
func TestShortKeyMaskedWithoutManglingNames(t *testing.T) {
	const key = "demo"
	srv := httpstub.New(t)
	srv.Register(httpstub.REST("POST", "/auth").JSONFields(map[string]any{"key": key}),
		httpstub.String(200, `{"access_token": "tok-of-the-demo-namespace-0123456789"}`))
	// A hostile server echoing the key back.
	srv.Register(httpstub.REST("GET", "/networks/sim-demo-net"),
		httpstub.String(404, fmt.Sprintf(`{"error": "network sim-demo-net not found for key %s (key=%s)", "status": 404}`, key, key)))
	var debug syncbuf.Buffer
	c, err := client.New(client.Options{APIURL: srv.Serve(), Namespace: "sim-demo", Key: key, Timeout: 5 * time.Second, Debug: &debug})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.GetNetwork(t.Context(), "sim-demo-net")
	var apiErr *client.APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("want an API error, got %v", err)
	}
	standalone := regexp.MustCompile(`(^|[^A-Za-z0-9_.-])demo($|[^A-Za-z0-9_-])`)
	for name, text := range map[string]string{"error": err.Error(), "message": apiErr.Message, "body": string(apiErr.Body), "debug": debug.String()} {
		if m := standalone.FindString(text); m != "" {
			t.Errorf("the key was printed in the %s (%q):\n%s", name, m, text)
		}
		if strings.Contains(text, "sim-[redacted]") {
			t.Errorf("a name holding the key was mangled in the %s:\n%s", name, text)
		}
	}
	for name, text := range map[string]string{"error": err.Error(), "debug": debug.String()} {
		if !strings.Contains(text, "network sim-demo-net not found for key [redacted] (key=[redacted])") {
			t.Errorf("the %s lacks the server's message with names whole and the key masked:\n%s", name, text)
		}
	}
	if !strings.Contains(debug.String(), "/networks/sim-demo-net") {
		t.Errorf("the request line lost the network's name:\n%s", debug.String())
	}
}
