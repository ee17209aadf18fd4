package client_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/client"
)

// screenshotBlob is the UUID sf2024/screenshot.json names.
const screenshotBlob = "6bff478b-c845-4637-b1ad-4b98349fa224"

// TestScreenshotRecordedAnswer: GET /instances/{ref}/screenshot answers
// the new blob's UUID as a bare JSON string (shakenfist da448b1a
// InstanceScreenshotEndpoint.get, sent by Flask-RESTful as
// json.dumps(str)+"\n"); the client decodes it and the blob's bytes are
// then fetched as any blob's, as sf-client's get_screenshot does
// (client-python 6c25293c: get_blob_data(r.json())).
func TestScreenshotRecordedAnswer(t *testing.T) {
	s := newSF(t)
	s.handle("GET /", reply(200, golden(t, "sf2024/root.html"), "Content-Type", "text/html"))
	s.handle("GET /instances/web1/screenshot", reply(200, golden(t, "sf2024/screenshot.json")))
	png := []byte("\x89PNG\r\n\x1a\n a console, as libvirt captured it")
	var view map[string]any
	if err := json.Unmarshal([]byte(golden(t, "sf2024/blob.json")), &view); err != nil {
		t.Fatal(err)
	}
	view["uuid"], view["size"], view["sha512"] = screenshotBlob, len(png), nil
	blob, _ := json.Marshal(view)
	s.handle("GET /blobs/"+screenshotBlob, reply(200, string(blob)))
	s.handle("GET /blobs/"+screenshotBlob+"/data", reply(200, string(png), "Content-Type", "text/plain"))
	c := sfClient(t, s, nil)

	got, err := c.InstanceScreenshot(t.Context(), "web1")
	if err != nil || got != screenshotBlob {
		t.Fatalf("screenshot blob %q, %v; want %s", got, err, screenshotBlob)
	}
	b, err := c.GetBlob(t.Context(), got)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if n, err := c.DownloadBlob(t.Context(), b.UUID, b.Size, &out, client.DownloadBlobOptions{}); err != nil || n != int64(len(png)) || !bytes.Equal(out.Bytes(), png) {
		t.Errorf("blob data %q (%d, %v), want the screenshot's bytes", out.Bytes(), n, err)
	}
}

// TestScreenshotNotReady: an instance that is not created is refused with
// requires_instance_active's 406 (shakenfist da448b1a base.py), whose text
// the error carries as the server wrote it.
func TestScreenshotNotReady(t *testing.T) {
	s := newSF(t)
	s.handle("GET /", reply(200, golden(t, "sf2024/root.html"), "Content-Type", "text/html"))
	s.handle("GET /instances/web1/screenshot", reply(406, golden(t, "sf2024/screenshot_not_ready.json")))
	c := sfClient(t, s, nil)
	got, err := c.InstanceScreenshot(t.Context(), "web1")
	var apiErr *client.APIError
	if got != "" || !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusNotAcceptable ||
		apiErr.Message != "instance 6a4e1a57-1b43-4cd8-9d39-9a4c0b0d1f01 is not ready (preflight)" {
		t.Fatalf("screenshot of a preflight instance: %q, %v", got, err)
	}
}

// A server whose root page lacks instance-screenshot is not asked, as
// sf-client's get_screenshot raises IncapableException first.
func TestScreenshotWithoutCapability(t *testing.T) {
	s := newSF(t)
	s.handle("GET /", reply(200, strings.Replace(golden(t, "sf2024/root.html"), " instance-screenshot,", "", 1), "Content-Type", "text/html"))
	// No route for the screenshot: the registry fails the test if one is asked for.
	c := sfClient(t, s, nil)
	if _, err := c.InstanceScreenshot(t.Context(), "web1"); !errors.As(err, new(*client.NotSupportedError)) {
		t.Fatalf("want NotSupportedError, got %v", err)
	}
	for _, r := range s.recorded() {
		if strings.HasSuffix(r.path, "/screenshot") {
			t.Errorf("sent %s %s to a server without the capability", r.method, r.path)
		}
	}
}
