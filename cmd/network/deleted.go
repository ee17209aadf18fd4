package network

import (
	"fmt"
	"strings"

	"github.com/dustin/go-humanize/english"
	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/output"
)

// NetworksDeletedFields shows what DELETE /networks did: the networks
// deleted and those still in use. A 2024 server answers the second case
// with a 403 (network.py@da448b1a NetworksEndpoint.delete), which is not a
// refused key: it becomes an ordinary failure (exit 1) that says what to do.
func NetworksDeletedFields(n *client.NetworksDeleted, err error) ([]output.Field, error) {
	if n == nil {
		return nil, err
	}
	fields := []output.Field{{Name: "networks", Value: strings.Join(n.Deleted, ",")}}
	if len(n.Unable) > 0 {
		fields = append(fields, output.Field{Name: "networks_in_use", Value: strings.Join(n.Unable, ",")})
		err = fmt.Errorf("%d %s still in use were not deleted (%s); delete their instances first, or use \"shakectl namespace clean\"",
			len(n.Unable), english.PluralWord(len(n.Unable), "network", ""), strings.Join(n.Unable, ", "))
	}
	return fields, err
}
