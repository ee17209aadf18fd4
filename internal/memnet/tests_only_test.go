package memnet_test

import (
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/internal/srcscan"
)

// memnet is a test's network: only tests import it. Production code (the
// kernel's Factory.Net above all) holds a network.Network, whose default
// is the machine's TCP.
func TestOnlyTestsImportMemnet(t *testing.T) {
	srcscan.Walk(t, []string{"../.."}, 200, func(f srcscan.File) {
		for _, p := range f.Imports() {
			if strings.HasSuffix(p, "/internal/memnet") {
				t.Errorf("%s imports memnet: hold a network.Network instead", f.Path)
			}
		}
	}, "internal/memnet")
}
