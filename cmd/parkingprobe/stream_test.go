package parkingprobe_test

import (
	"context"
	"testing"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/root"
)

// endlessZeros is /dev/zero as stdin; it calls onRead on its 100th read
// (a Ctrl-C while merge is reading).
type endlessZeros struct {
	n      int
	onRead func()
}

func (z *endlessZeros) Read(p []byte) (int, error) {
	if z.n++; z.n == 100 {
		z.onRead()
	}
	clear(p)
	return len(p), nil
}

// Issue 28, item 4: "merge - < /dev/zero" spun at 80% CPU and ignored
// SIGINT and SIGTERM. Ctrl-C now stops the read, exit 130.
func TestMergeStreamStopsOnInterrupt(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancelCause(context.Background())
	f, _, errOut := probeTestFactory(t, ctx)
	in := &endlessZeros{onRead: func() { cancel(cmdutil.ErrInterrupted) }}
	f.IOStreams.In = in
	if code := root.Run(f, []string{"parking-probe", "merge", "-"}); code != cmdutil.ExitInterrupted {
		t.Errorf("exit %d, want 130; stderr %s", code, errOut)
	}
	// Not read on to the stream's 4 GiB bound after the interrupt.
	if in.n > 101 {
		t.Errorf("%d reads, %d of them after Ctrl-C", in.n, in.n-100)
	}
}
