package client_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shakenfist/shakectl/client"
)

// uploadServer is upload.py's data and truncate endpoints (da448b1a) over
// one in-memory upload, with faults: the nth data POST can be appended
// with its answer lost (a 500 after the write), or refused unwritten.
type uploadServer struct {
	mu       sync.Mutex
	data     []byte
	posts    int
	lostAt   int // append, then answer 500
	refuseAt int // answer 500 without appending
}

func (u *uploadServer) handlers(s *sfStubs) {
	s.handle("POST /upload/u1", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		u.mu.Lock()
		defer u.mu.Unlock()
		if len(body) > 0 {
			u.posts++
			if u.posts == u.refuseAt {
				w.WriteHeader(500)
				fmt.Fprint(w, `{"error": "boom", "status": 500}`)
				return
			}
			u.data = append(u.data, body...)
			if u.posts == u.lostAt {
				w.WriteHeader(500)
				fmt.Fprint(w, `{"error": "lost", "status": 500}`)
				return
			}
		}
		fmt.Fprint(w, len(u.data))
	})
	for n := 0; n <= 8<<20; n += 512 << 10 {
		off := n
		s.handle(fmt.Sprintf("POST /upload/u1/truncate/%d", off), func(w http.ResponseWriter, r *http.Request) {
			u.mu.Lock()
			defer u.mu.Unlock()
			u.data = u.data[:off]
			fmt.Fprint(w, "null")
		}).Optional() // a resume truncates at one offset, if any
	}
}

func TestSendUploadFileRecoversLostAndRefusedChunks(t *testing.T) {
	s := newSF(t)
	u := &uploadServer{lostAt: 2, refuseAt: 4}
	u.handlers(s)
	c := sfClient(t, s, nil)
	file := bytes.Repeat([]byte("shakenfist"), 400000) // 4 MB
	var last int64
	held, err := c.SendUploadFile(t.Context(), "u1", bytes.NewReader(file), int64(len(file)), client.UploadFileOptions{Progress: func(n int64) { last = n }})
	if err != nil {
		t.Fatal(err)
	}
	if held != int64(len(file)) || last != held || !bytes.Equal(u.data, file) {
		t.Errorf("held %d, progress %d, server %d bytes (equal %v)", held, last, len(u.data), bytes.Equal(u.data, file))
	}
	for _, r := range apiCalls(s) {
		if r.method == "POST" && r.path == "/upload/u1" && r.header.Get("Content-Type") != "application/octet-stream" {
			t.Errorf("chunk sent as %q", r.header.Get("Content-Type"))
			break
		}
	}
}

func TestSendUploadFileResumesFromHeld(t *testing.T) {
	s := newSF(t)
	file := []byte(strings.Repeat("x", 1000) + strings.Repeat("y", 1000))
	u := &uploadServer{data: append([]byte(nil), file[:1000]...)}
	u.handlers(s)
	c := sfClient(t, s, nil)
	from, err := c.UploadSize(t.Context(), "u1")
	if err != nil || from != 1000 {
		t.Fatalf("size %d %v", from, err)
	}
	if _, err := c.SendUploadFile(t.Context(), "u1", bytes.NewReader(file), 2000, client.UploadFileOptions{From: from}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(u.data, file) || u.posts != 1 {
		t.Errorf("server %q after %d posts", u.data, u.posts)
	}
}

func TestBlobBySHA512(t *testing.T) {
	s := newSF(t)
	sum := strings.Repeat("ab", 64)
	s.handle("GET /blob_checksums/sha512/"+sum, reply(200, golden(t, "sf2024/blob.json")))
	s.handle("GET /blob_checksums/sha512/"+strings.Repeat("cd", 64), reply(200, "null"))
	c := sfClient(t, s, nil)
	if b, err := c.BlobBySHA512(t.Context(), sum); err != nil || b.UUID != "578da8b6-eb98-4e10-bb36-e4d4d763d312" {
		t.Errorf("found %+v %v", b, err)
	}
	if b, err := c.BlobBySHA512(t.Context(), strings.Repeat("cd", 64)); err != nil || b != nil {
		t.Errorf("none %+v %v", b, err)
	}
	if _, err := c.BlobBySHA512(t.Context(), "../x"); err == nil {
		t.Error("a hash that is not hex was sent")
	}
}

// Issue 40, item 6: the size of an upload is asked with an empty POST, and
// an empty body must go with Content-Length: 0, never chunked: the 2026
// server refuses every chunked body with 411 Length Required
// (test_body_size_limit.py @86b2eedf), which broke `artifact upload
// --resume` there. So does a truncate, the other bodyless POST of an
// upload. Over a real connection, as the server sees it.
func TestBodylessPostsCarryAContentLength(t *testing.T) {
	type seen struct {
		path          string
		contentLength []string
		chunked       bool
	}
	var (
		mu  sync.Mutex
		got []seen
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/auth" {
			fmt.Fprint(w, `{"access_token": "tok", "token_type": "Bearer", "expires_in": 900}`)
			return
		}
		chunked := len(r.TransferEncoding) > 0 && r.TransferEncoding[0] == "chunked"
		mu.Lock()
		got = append(got, seen{r.URL.Path, r.Header.Values("Content-Length"), chunked})
		mu.Unlock()
		if chunked {
			w.WriteHeader(http.StatusLengthRequired)
			fmt.Fprint(w, `{"error": "a content-length is required", "status": 411}`)
			return
		}
		if strings.Contains(r.URL.Path, "/truncate/") {
			fmt.Fprint(w, "null")
			return
		}
		fmt.Fprint(w, "1000")
	}))
	t.Cleanup(srv.Close)
	c, err := client.New(client.Options{APIURL: srv.URL, Namespace: "system", Key: testKey, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := c.UploadSize(t.Context(), "u1"); err != nil || n != 1000 {
		t.Errorf("UploadSize: %d, %v", n, err)
	}
	if err := c.TruncateUpload(t.Context(), "u1", 500); err != nil {
		t.Errorf("TruncateUpload: %v", err)
	}
	if len(got) != 2 {
		t.Fatalf("the server saw %+v", got)
	}
	for _, g := range got {
		if g.chunked || len(g.contentLength) != 1 || g.contentLength[0] != "0" {
			t.Errorf("POST %s: chunked %v, Content-Length %q; want Content-Length: 0", g.path, g.chunked, g.contentLength)
		}
	}
}
