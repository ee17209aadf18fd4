package parkingprobe_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/root"
)

// Issue 34, item 11: Ctrl-C while waiting for --start-at printed a full
// report of failed checks for a run that sent nothing. It says nothing was
// sent, on stderr, exits 130 and prints no report; and a --start-at hours
// ahead is warned about before the wait.
func TestInterruptedBeforeStartAtSaysNothingSent(t *testing.T) {
	t.Parallel()
	srv, hits := countingTarget(t)
	ctx, cancel := context.WithCancelCause(context.Background())
	f, out, errOut := probeTestFactory(t, ctx)
	at := time.Now().Add(3 * time.Hour).UTC().Format(time.RFC3339)
	// Ctrl-C comes once the run says it waits.
	f.IOStreams.ErrOut = writerFunc(func(b []byte) (int, error) {
		n, err := errOut.Write(b)
		if strings.Contains(string(b), "waiting until") {
			cancel(cmdutil.ErrInterrupted)
		}
		return n, err
	})
	code := root.Run(f, []string{"parking-probe", "--target", srv.URL, "--requests", "3", "--start-at", at})
	if code != 130 {
		t.Errorf("exit %d, want 130; stderr %s", code, errOut)
	}
	if out.Len() != 0 {
		t.Errorf("a report was printed for a run that sent nothing:\n%s", out)
	}
	if !strings.Contains(errOut.String(), "nothing sent") {
		t.Errorf("stderr %q does not say nothing was sent", errOut)
	}
	if !strings.Contains(errOut.String(), "--start-at is 3h0m0s from now") {
		t.Errorf("stderr %q does not warn that --start-at is hours ahead", errOut)
	}
	if hits.Load() != 0 {
		t.Errorf("%d requests sent", hits.Load())
	}
}

// Issue 34, item 11: a Job whose shards each hold far more than one probe
// process holds well is warned about, naming how many shards would do.
func TestJobWarnsOfAHugeShard(t *testing.T) {
	t.Parallel()
	r := runJob(t, "parking-probe", "job", "--shards", "2", "--image", "img:1", "--", "--target", "http://r", "--requests", "100000")
	if r.Code != cmdutil.ExitOK || !strings.Contains(r.Stderr, "each shard may hold 50000 requests in flight") || !strings.Contains(r.Stderr, "at least 10") {
		t.Errorf("exit %d, stderr %q: want a warning naming the shards needed", r.Code, r.Stderr)
	}
	r = runJob(t, "parking-probe", "job", "--shards", "2", "--image", "img:1", "--", "--target", "http://r", "--requests", "1000")
	if strings.Contains(r.Stderr, "warning") {
		t.Errorf("a small shard warned: %q", r.Stderr)
	}
}

type writerFunc func([]byte) (int, error)

func (w writerFunc) Write(b []byte) (int, error) { return w(b) }
