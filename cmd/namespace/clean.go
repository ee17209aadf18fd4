package namespace

import (
	"context"
	"fmt"
	"strings"

	"github.com/dustin/go-humanize/english"
	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/client/poll"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/network"
	"github.com/shakenfist/shakectl/output"
)

// NewCmdClean builds `shakectl namespace clean`: a delete of many on the
// one mechanism (builders.NewDeleteAllCmd), so the scope rule holds here
// too: "namespace clean system" with the system key would delete in every
// namespace, and is refused.
func NewCmdClean(f *cmdutil.Factory) *cobra.Command {
	return builders.NewDeleteAllCmd(f, builders.DeleteAllSpec{
		Use: "clean", Short: "Delete every instance and network of a namespace",
		Plural: "instances and networks", NamespaceArg: true,
		Long: `Delete every instance and then every network of a namespace, as sf-client's
"namespace clean" does: DELETE /instances, then DELETE /networks with
clean_wait, so that each network goes once its interfaces have. It prints
what the server queued for deletion: instances, networks deleted, networks
it was unable to delete (still in use; clean again once the instances are
gone).

With --async pause (the default) or block it then waits, within the
deadline, until the namespace holds no instances and no networks, so that
"namespace delete" can follow; with --async continue it returns at once.

NAMESPACE "system" is refused with the system key (exit 2, nothing sent):
the server reads it as every namespace. "instance delete-all
--all-namespaces" and "network delete-all --all-namespaces" say that on
purpose.`,
		Example: `  shakectl namespace clean ci --yes`,
		Delete: func(s *cmdutil.Session, sc builders.Scope) (output.Detail, error) {
			ns := sc.Namespace
			cleaned, err := s.Client.CleanNamespace(s.Ctx, ns)
			if cleaned == nil || cleaned.Instances == nil {
				return output.Detail{}, err // nothing was queued
			}
			d := output.Detail{Raw: cmdutil.RawOf(nil, cleaned)}
			d.Fields = append(d.Fields, output.Field{Name: "instances", Value: strings.Join(cleaned.Instances, ",")})
			var nets []output.Field
			nets, err = network.NetworksDeletedFields(cleaned.Networks, err)
			d.Fields = append(d.Fields, nets...)
			if err == nil && s.Cfg.Async.Waits() {
				_, err = builders.Await(s, emptied(s, ns))
			}
			return d, err
		},
	})
}

// emptied is the wait until a namespace's instances and networks are
// gone, as the server's delete checks them (auth.py@da448b1a: any
// instance or network not deleted), within the --async budget (pause
// forgives its own).
func emptied(s *cmdutil.Session, ns string) builders.Wait[left] {
	return builders.Wait[left]{
		Poll: poll.Poll[*left]{
			Get: func(ctx context.Context) (*left, error) {
				insts, err := s.Client.ListInstances(ctx, false)
				if err != nil {
					return nil, err
				}
				nets, err := s.Client.ListNetworks(ctx, false)
				if err != nil {
					return nil, err
				}
				var l left
				for _, i := range insts {
					if i.Namespace == ns && i.Lifecycle() != client.StateDeleted {
						l.instances++
					}
				}
				for _, n := range nets {
					if n.Namespace == ns && client.State(n.State) != client.StateDeleted {
						l.networks++
					}
				}
				return &l, nil
			},
			Done: func(l *left) (bool, error) { return l.instances+l.networks == 0, nil },
		},
		OnTimeout: s.Cfg.Async.OnTimeout(),
		Say: func(l *left) builders.Said {
			said := builders.Said{Subject: "namespace " + ns, Unmet: "was not emptied"}
			if l != nil {
				said.Left = fmt.Sprintf("%d %s and %d %s left", l.instances, english.PluralWord(l.instances, "instance", ""), l.networks, english.PluralWord(l.networks, "network", ""))
			}
			return said
		},
	}
}

// left is what a namespace still holds.
type left struct{ instances, networks int }
