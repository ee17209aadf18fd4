package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"
)

// Upload chunk sizes: sf-client aims for three seconds a chunk between
// 4 KiB and 2 MiB (apiclient.py send_upload_file, 6c25293); shakectl
// starts larger, as most links it runs over are fast, and keeps the same
// upper bound so that no chunk is larger than a real server has seen.
const (
	UploadChunkMin   = 64 << 10
	UploadChunkMax   = 2 << 20
	uploadChunkStart = 512 << 10
	uploadChunkAim   = 3 * time.Second
	// uploadRetries is how many failed chunks in a row end the upload, as
	// sf-client gives up after five.
	uploadRetries = 5
)

// UploadFileOptions configures SendUploadFile.
type UploadFileOptions struct {
	// From is where to start: 0, or the size the server holds of an
	// upload being resumed (UploadSize).
	From int64
	// Progress, when set, is called with the bytes the server holds after
	// each chunk it acknowledged.
	Progress func(held int64)
}

// SendUploadFile sends r's bytes [From, size) to the upload in chunks, in
// constant memory (one chunk buffer). A chunk that fails is checked
// against the server's size (an empty append): if it landed, the upload
// goes on; if not, the upload is truncated back to what was acknowledged
// and the chunk sent again, five failures in a row at most. It returns
// the bytes the server holds.
func (c *Client) SendUploadFile(ctx context.Context, id string, r io.ReaderAt, size int64, o UploadFileOptions) (int64, error) {
	held := o.From
	chunk := int64(uploadChunkStart)
	buf := make([]byte, UploadChunkMax)
	failures := 0
	for held < size {
		n := min(chunk, size-held)
		if _, err := r.ReadAt(buf[:n], held); err != nil && !(errors.Is(err, io.EOF) && n > 0) {
			return held, fmt.Errorf("reading the file at %d: %w", held, err)
		}
		start := time.Now()
		got, err := c.SendUploadChunk(ctx, id, buf[:n])
		if err == nil && got != held+n {
			err = fmt.Errorf("the server holds %d bytes of the upload after a chunk of %d at %d", got, n, held)
		}
		if err != nil {
			if ctx.Err() != nil {
				return held, err
			}
			failures++
			if failures > uploadRetries {
				return held, err
			}
			// Did the chunk land though its answer was lost?
			sz, serr := c.UploadSize(ctx, id)
			switch {
			case serr != nil:
				continue
			case sz == held+n:
				got = sz
			default:
				if sz != held {
					if terr := c.TruncateUpload(ctx, id, held); terr != nil {
						continue
					}
				}
				chunk = max(chunk/2, UploadChunkMin)
				continue
			}
		}
		failures = 0
		held = got
		if o.Progress != nil {
			o.Progress(held)
		}
		if took := time.Since(start); took > 0 {
			chunk = int64(float64(chunk) * float64(uploadChunkAim) / float64(took))
		}
		chunk = min(max(chunk, UploadChunkMin), UploadChunkMax)
	}
	return held, nil
}

// DownloadBlobOptions configures DownloadBlob.
type DownloadBlobOptions struct {
	// Idle bounds the wait for each next byte (0: the client's timeout).
	Idle time.Duration
	// Progress, when set, is called with the bytes written so far.
	Progress func(written int64)
}

// DownloadBlob streams a blob of size bytes into w. A connection that
// drops after sending something is reopened at the offset reached (as
// sf-client's artifact download does); one that fails three times
// without sending anything ends the download. An answer that ends before
// size, or runs past it, is an error: the caller must not keep the file.
func (c *Client) DownloadBlob(ctx context.Context, blobUUID string, size int64, w io.Writer, o DownloadBlobOptions) (int64, error) {
	var written int64
	barren := 0
	buf := make([]byte, 256<<10)
	for {
		body, err := c.OpenBlobData(ctx, blobUUID, written, o.Idle)
		if err != nil {
			return written, err
		}
		before := written
		var rerr error
		for {
			n, err := body.Read(buf)
			if n > 0 {
				if written+int64(n) > size {
					body.Close()
					return written, fmt.Errorf("the server sent more than the blob's %d bytes", size)
				}
				if _, werr := w.Write(buf[:n]); werr != nil {
					body.Close()
					return written, werr
				}
				written += int64(n)
				if o.Progress != nil {
					o.Progress(written)
				}
			}
			if err != nil {
				if err != io.EOF {
					rerr = err
				}
				break
			}
		}
		body.Close()
		if ctx.Err() != nil {
			return written, context.Cause(ctx)
		}
		if written == size && rerr == nil {
			return written, nil
		}
		if written == before {
			barren++
			if barren >= 3 {
				if rerr == nil {
					rerr = fmt.Errorf("the server's answer ended at %d of %d bytes", written, size)
				}
				return written, rerr
			}
		} else {
			barren = 0
		}
	}
}
