package proxy

import (
	"testing"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/internal/fielderr/fieldertest"
)

// Every {Field} placeholder the proxy's option errors use names a flag, and
// each of those flags is one proxy really has: the table and the flags
// cannot drift apart.
func TestEveryProxyFieldHasAFlag(t *testing.T) {
	t.Parallel()
	fieldertest.EveryFieldNamed(t, proxyFields.Name, 3, "../../proxy")
	c := NewCmdProxy(&cmdutil.Factory{})
	for _, f := range proxyFields {
		if c.Flags().Lookup(f.Name) == nil && c.InheritedFlags().Lookup(f.Name) == nil && f.Name != "api-url" {
			t.Errorf("the table names --%s for {%s}, which proxy has no flag for", f.Name, f.Field)
		}
	}
}
