package client

import (
	"bytes"
	"context"
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	retryablehttp "github.com/hashicorp/go-retryablehttp"

	"github.com/shakenfist/shakectl/internal/redact"
)

// Uploads and blob data: shakenfist da448b1a external_api/upload.py
// (POST /upload, POST /upload/{uuid}, POST /upload/{uuid}/truncate/{n}),
// artifact.py ArtifactUploadEndpoint (POST /artifacts/upload/{name}),
// blob.py BlobDataEndpoint (GET /blobs/{uuid}/data?offset&limit) and
// BlobChecksumsEndpoint (GET /blob_checksums/sha512/{hash}); the loops
// follow client-python 6c25293 apiclient.py send_upload_file and
// commandline/artifact.py artifact_download.

// Upload is an upload in progress (upload.py upload_create_example).
type Upload struct {
	UUID      string          `json:"uuid"`
	Node      string          `json:"node"`
	CreatedAt float64         `json:"created_at"`
	Raw       json.RawMessage `json:"-"`
}

func (u *Upload) keepRaw(r json.RawMessage) { u.Raw = r }

// CreateUpload is POST /upload.
func (c *Client) CreateUpload(ctx context.Context) (*Upload, error) {
	u, _, err := getOne[Upload](c, ctx, http.MethodPost, "/upload", nil)
	return u, err
}

func uploadPath(id string, rest ...string) (string, error) {
	if strings.TrimSpace(id) == "" {
		return "", &UsageError{Field: "upload", Problem: "empty upload uuid"}
	}
	return refPath("upload", id, rest...)
}

// SendUploadChunk is POST /upload/{uuid} with data as the raw body: the
// server appends it and answers the upload's new size. An empty chunk
// appends nothing, so it reads the size: the API has no GET of an upload,
// and this is how an interrupted upload learns where to go on.
func (c *Client) SendUploadChunk(ctx context.Context, id string, data []byte) (int64, error) {
	p, err := uploadPath(id)
	if err != nil {
		return 0, err
	}
	resp, err := c.binary(ctx, http.MethodPost, p, data, 0)
	if err != nil {
		return 0, err
	}
	defer resp.body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.body, 64))
	if err != nil {
		return 0, c.streamError(http.MethodPost, p, err)
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0, &ResponseError{Method: http.MethodPost, URL: c.shownEndpoint(p), StatusCode: resp.status, RequestID: resp.requestID,
			Problem: fmt.Sprintf("an answer that is not the upload's size (%q)", truncateForError(b))}
	}
	return n, nil
}

func truncateForError(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "..."
	}
	return string(b)
}

// UploadSize reads how many bytes the server holds of an upload.
func (c *Client) UploadSize(ctx context.Context, id string) (int64, error) {
	return c.SendUploadChunk(ctx, id, []byte{})
}

// TruncateUpload is POST /upload/{uuid}/truncate/{offset}.
func (c *Client) TruncateUpload(ctx context.Context, id string, offset int64) error {
	p, err := uploadPath(id, "truncate", strconv.FormatInt(offset, 10))
	if err != nil {
		return err
	}
	_, _, err = c.call(ctx, http.MethodPost, p, nil)
	return err
}

// ArtifactUploadRequest is the body of POST /artifacts/upload/{name}: one
// of UploadUUID (the upload becomes a new blob) and BlobUUID (a blob the
// cluster holds becomes the new version).
type ArtifactUploadRequest struct {
	UploadUUID string `json:"upload_uuid,omitempty"`
	BlobUUID   string `json:"blob_uuid,omitempty"`
	SourceURL  string `json:"source_url,omitempty"`
	Shared     bool   `json:"shared"`
	Namespace  string `json:"namespace,omitempty"`
}

// ArtifactFromUpload is POST /artifacts/upload/{name}. A name may not hold
// a slash (sf-client refuses it: the route's <artifact_name> cannot).
func (c *Client) ArtifactFromUpload(ctx context.Context, name string, req ArtifactUploadRequest) (*Artifact, error) {
	if strings.TrimSpace(name) == "" || strings.Contains(name, "/") {
		return nil, &UsageError{Field: "name", Problem: "an artifact name is not empty and holds no /"}
	}
	if (req.UploadUUID == "") == (req.BlobUUID == "") {
		return nil, &UsageError{Field: "upload_uuid", Problem: "name exactly one of an upload and a blob"}
	}
	a, _, err := getOne[Artifact](c, ctx, http.MethodPost, "/artifacts/upload/"+url.PathEscape(name), req)
	return a, err
}

// BlobBySHA512 is GET /blob_checksums/sha512/{hash}: the created blob
// with that sha512, or nil when the cluster has none (200 null).
func (c *Client) BlobBySHA512(ctx context.Context, sum string) (*Blob, error) {
	if len(sum) != 128 || strings.Trim(strings.ToLower(sum), "0123456789abcdef") != "" {
		return nil, &UsageError{Field: "hash", Problem: "a sha512 is 128 hex digits"}
	}
	return getOneOrNull[Blob](c, ctx, http.MethodGet, "/blob_checksums/sha512/"+sum, nil)
}

// HasCapability reports whether the server's root page lists a
// capability; a server that lists none is taken to have it.
func (c *Client) HasCapability(ctx context.Context, name string) bool {
	return c.require(ctx, name, name) == nil
}

// binaryAnswer is a 2xx answer whose body the caller reads and closes.
type binaryAnswer struct {
	status    int
	requestID string
	header    http.Header
	body      io.ReadCloser
}

// binary sends a request whose body (if any) is bytes, not JSON, and
// hands back a 2xx answer unread: upload chunks and blob data. idle > 0
// drops the per-request timeout (a blob takes as long as it takes) for an
// idle one: the answer fails when no byte arrives for that long.
func (c *Client) binary(ctx context.Context, method, path string, body []byte, idle time.Duration) (*binaryAnswer, error) {
	call := c.policy(method, path).NewCall()
	defer call.Finish()
	shown := c.shownEndpoint(path)
	ctx = withCall(ctx, call)
	stop := context.CancelFunc(func() {})
	var w *idleWatch
	if idle > 0 {
		ctx, stop = context.WithCancel(ctx)
		w = newIdleWatch(idle, stop)
	}
	req, err := retryablehttp.NewRequestWithContext(ctx, method, c.endpoint(path), requestBody(body))
	if err != nil {
		stop()
		return nil, fmt.Errorf("%s %s: %w", method, pathOf(shown), redact.URLError(err))
	}
	req.Header.Set("User-Agent", c.opts.UserAgent)
	if body != nil {
		// An empty chunk (UploadSize) too: a chunk of nothing.
		req.Header.Set("Content-Type", "application/octet-stream")
	}
	if len(body) > 0 {
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		call.SetBody(body)
	}
	hc := c.hc
	if idle > 0 {
		copied := *c.hc
		copied.Timeout = 0
		hc = &copied
	}
	resp, err := call.Client(hc).Do(req)
	if err != nil {
		stop()
		return nil, c.callError(ctx, method, shown, err, call)
	}
	out := &binaryAnswer{status: resp.StatusCode, requestID: resp.Header.Get("X-Request-ID"), header: resp.Header, body: resp.Body}
	if resp.StatusCode < 200 || resp.StatusCode >= 300 {
		b := ReadErrorBody(resp.Body)
		resp.Body.Close()
		stop()
		apiErr := NewAPIError(method, shown, resp.StatusCode, resp.Header, b, c.opts.Now())
		apiErr.Attempts, apiErr.Elapsed = call.Attempts(), call.Elapsed()
		markRoute(ctx, apiErr, method, path)
		c.scrub(apiErr)
		return nil, apiErr
	}
	if w != nil {
		out.body = &watchedBody{ReadCloser: resp.Body, w: w, stop: stop}
	}
	return out, nil
}

// idleWatch fires when no Read has returned bytes for d.
type idleWatch struct {
	mu    sync.Mutex
	d     time.Duration
	t     *time.Timer
	fired bool
}

func newIdleWatch(d time.Duration, fire func()) *idleWatch {
	w := &idleWatch{d: d}
	w.t = time.AfterFunc(d, func() {
		w.mu.Lock()
		w.fired = true
		w.mu.Unlock()
		fire()
	})
	return w
}

func (w *idleWatch) kick() { w.t.Reset(w.d) }

func (w *idleWatch) didFire() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.fired
}

type watchedBody struct {
	io.ReadCloser
	w    *idleWatch
	stop context.CancelFunc
}

// ErrStalled is a transfer that received nothing for the idle timeout.
var ErrStalled = errors.New("no data for the idle timeout")

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.w.kick()
	}
	if err != nil && err != io.EOF && b.w.didFire() {
		err = &stallError{idle: b.w.d, err: err}
	}
	return n, err
}

// stallError is a transfer's answer that stopped coming for its idle
// bound: a deadline (errors.Is ErrStalled), whose request's error names
// the bound (streamError).
type stallError struct {
	idle time.Duration
	err  error
}

func (e *stallError) Error() string        { return fmt.Sprintf("%s (%s): %s", ErrStalled, e.idle, e.err) }
func (e *stallError) Unwrap() error        { return e.err }
func (e *stallError) Is(target error) bool { return target == ErrStalled }

func (b *watchedBody) Close() error {
	b.w.t.Stop()
	b.stop()
	return b.ReadCloser.Close()
}

func (c *Client) streamError(method, path string, err error) error {
	shown := c.shownEndpoint(path)
	bound := ""
	if se := (*stallError)(nil); errors.As(err, &se) {
		bound = fmt.Sprintf("no data within %s ({Timeout}, the bound on each request)", se.idle)
	}
	return &TransportError{Method: method, URL: shown, Attempts: 1, Bound: bound, Err: &url.Error{Op: opName(method), URL: shown, Err: err}}
}

// OpenBlobData is GET /blobs/{uuid}/data?offset=N: the blob's bytes from
// offset to the end, streamed. The server sends no length (flask streams
// a generator); idle bounds the wait for each next byte.
func (c *Client) OpenBlobData(ctx context.Context, blobUUID string, offset int64, idle time.Duration) (io.ReadCloser, error) {
	if strings.TrimSpace(blobUUID) == "" {
		return nil, &UsageError{Field: "blob", Problem: "empty blob uuid"}
	}
	if idle <= 0 {
		idle = c.opts.Timeout
		if idle <= 0 {
			idle = DefaultTimeout
		}
	}
	p := "/blobs/" + url.PathEscape(blobUUID) + "/data?offset=" + strconv.FormatInt(offset, 10)
	a, err := c.binary(ctx, http.MethodGet, p, nil, idle)
	if err != nil {
		return nil, err
	}
	return &pathBody{ReadCloser: a.body, c: c, path: p}, nil
}

// pathBody names the request in a read error.
type pathBody struct {
	io.ReadCloser
	c    *Client
	path string
}

func (b *pathBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		err = b.c.streamError(http.MethodGet, b.path, err)
	}
	return n, err
}

// FileSHA512 reads r to the end and returns its sha512 in hex, calling
// progress with the bytes read so far (a streaming pass: constant memory).
func FileSHA512(ctx context.Context, r io.Reader, progress func(int64)) (string, error) {
	h := sha512.New()
	buf := make([]byte, 1<<20)
	var n int64
	for {
		if err := context.Cause(ctx); err != nil && ctx.Err() != nil {
			return "", err
		}
		k, err := r.Read(buf)
		if k > 0 {
			h.Write(buf[:k])
			n += int64(k)
			if progress != nil {
				progress(n)
			}
		}
		if err == io.EOF {
			return hex.EncodeToString(h.Sum(nil)), nil
		}
		if err != nil {
			return "", err
		}
	}
}
