package parkingprobe_test

import (
	"testing"

	"github.com/shakenfist/shakectl/cmd/parkingprobe"
	"github.com/shakenfist/shakectl/internal/fielderr/fieldertest"
)

// Every {Field} placeholder the probe's option errors and warnings, and
// its report's checks and text, use has a flag here, so a message never
// reaches the user as a Go field path. A new placeholder fails this test
// until the command names its flag.
func TestEveryProbeOptionFieldHasAFlag(t *testing.T) {
	t.Parallel()
	fieldertest.EveryFieldNamed(t, parkingprobe.FlagName, 30, "../../probe", "../../probe/report")
}
