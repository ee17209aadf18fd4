package cluster

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/png"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// recorded reads one of the real answers under client/testdata (see its
// SOURCES.md).
func recorded(t *testing.T, name string) []byte {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "client", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestScreenshotSendsTheRecordedForms: the simulator's screenshot answers
// are the real server's forms (shakenfist da448b1a): the blob UUID as a
// JSON string and a newline, exactly as Flask-RESTful sends a str
// (sf2024/screenshot.json with its UUID swapped for the new blob's); the
// refusal of an instance not created is requires_instance_active's 406
// with the same fields and text (sf2024/screenshot_not_ready.json); and
// the instance's events gain Instance.get_screenshot's audit event naming
// the blob. Two shots of one console are two blobs with one sha512, and
// the search by it always names the first.
func TestScreenshotSendsTheRecordedForms(t *testing.T) {
	for _, gen := range []string{Generation2024, Generation2026} {
		t.Run(gen, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				_, c := bubbleSim(t, func(cfg *Config) { cfg.Generation = gen; cfg.CreateTime = time.Second })
				pending := c.mustCreate("web1", 1, 1024, 8, nil)
				uuid, state := pending["uuid"].(string), pending["state"].(string)
				a := c.do("GET", "/instances/web1/screenshot", nil)
				var want map[string]any
				if err := json.Unmarshal(recorded(t, "sf2024/screenshot_not_ready.json"), &want); err != nil {
					t.Fatal(err)
				}
				want["error"] = fmt.Sprintf("instance %s is not ready (%s)", uuid, state)
				if got := wantError(t, a, http.StatusNotAcceptable, "is not ready"); got["error"] != want["error"] {
					t.Errorf("refusal %q, want %q", got["error"], want["error"])
				}

				time.Sleep(2 * time.Second) // the simulated create, on the bubble's clock
				synctest.Wait()
				if st := c.do("GET", "/instances/web1", nil).obj(t)["state"]; st != stateCreated {
					t.Fatalf("instance %s after its create time, want created", st)
				}
				a = c.do("GET", "/instances/web1/screenshot", nil)
				var blob string
				if a.status != http.StatusOK || json.Unmarshal(a.raw, &blob) != nil || !isUUID(blob) {
					t.Fatalf("screenshot: %d %q", a.status, a.raw)
				}
				form := bytes.Replace(recorded(t, "sf2024/screenshot.json"), []byte("6bff478b-c845-4637-b1ad-4b98349fa224"), []byte(blob), 1)
				if !bytes.Equal(a.raw, form) || a.header.Get("Content-Type") != "application/json" {
					t.Errorf("screenshot answer %q (%s), want the recorded form %q", a.raw, a.header.Get("Content-Type"), form)
				}

				view := c.do("GET", "/blobs/"+blob, nil)
				if view.status != http.StatusOK {
					t.Fatalf("the screenshot's blob: %d %s", view.status, view.raw)
				}
				data := c.do("GET", "/blobs/"+blob+"/data", nil)
				if _, err := png.Decode(bytes.NewReader(data.raw)); err != nil || float64(len(data.raw)) != view.obj(t)["size"] {
					t.Errorf("blob data: %d bytes, a PNG? %v; view %s", len(data.raw), err, view.raw)
				}

				var acquired []map[string]any
				for _, e := range c.do("GET", "/instances/web1/events", nil).list(t) {
					if e["message"] == "acquired screenshot of instance console" {
						acquired = append(acquired, e)
					}
				}
				if len(acquired) != 1 || acquired[0]["type"] != "audit" {
					t.Fatalf("acquired events: %v", acquired)
				}
				if extra, _ := acquired[0]["extra"].(map[string]any); len(extra) != 1 || extra["blob"] != blob {
					t.Errorf("the audit event's extra is %v, want {blob: %s}", acquired[0]["extra"], blob)
				}
				if strings.Count(string(c.do("GET", "/instances/web1/events", nil).raw), "screenshot request from REST API") != 1 {
					t.Error("no screenshot request event")
				}

				// A second shot of the same console is a second blob with
				// the same bytes; the checksum search names the first,
				// every time, as the real hash cache lists it first.
				time.Sleep(time.Second)
				var second string
				if a := c.do("GET", "/instances/web1/screenshot", nil); json.Unmarshal(a.raw, &second) != nil || second == blob {
					t.Fatalf("second screenshot: %s", a.raw)
				}
				sum, _ := view.obj(t)["sha512"].(string)
				for range 10 {
					if got := c.do("GET", "/blob_checksums/sha512/"+sum, nil).obj(t)["uuid"]; got != blob {
						t.Fatalf("blob_checksums names %v, want the first screenshot's %s (the second is %s)", got, blob, second)
					}
				}
			})
		})
	}
}
