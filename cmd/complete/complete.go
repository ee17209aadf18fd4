package complete

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/output/termtext"
)

// Distribution completes parking-probe's --distribution: the three
// kinds, then, once "hot:" or "zipf:" is typed, typical parameters. A kind
// that needs a parameter is offered without the trailing space so the
// number can follow at once.
func Distribution(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if kind, _, ok := strings.Cut(toComplete, ":"); ok {
		examples := map[string][]cobra.Completion{
			"hot": {
				cobra.CompletionWithDesc("hot:0.5", "half the requests to the first actor"),
				cobra.CompletionWithDesc("hot:0.8", "80% to the first actor, the rest spread evenly"),
				cobra.CompletionWithDesc("hot:0.95", "nearly all to one actor"),
			},
			"zipf": {
				cobra.CompletionWithDesc("zipf:1.1", "mild skew, like web traffic"),
				cobra.CompletionWithDesc("zipf:2", "steep skew: a few actors get most requests"),
			},
		}[kind]
		var comps []cobra.Completion
		for _, e := range examples {
			if strings.HasPrefix(e, toComplete) {
				comps = append(comps, e)
			}
		}
		return comps, cobra.ShellCompDirectiveNoFileComp
	}
	kinds := []struct{ value, desc string }{
		{"uniform", "every actor equally likely"},
		{"hot:", "hot:FRACTION of the requests to the first actor"},
		{"zipf:", "zipf:S, the k-th actor's share proportional to 1/k^S"},
	}
	var comps []cobra.Completion
	directive := cobra.ShellCompDirectiveNoFileComp
	for _, k := range kinds {
		if strings.HasPrefix(k.value, toComplete) {
			comps = append(comps, cobra.CompletionWithDesc(k.value, k.desc))
			if strings.HasSuffix(k.value, ":") {
				directive |= cobra.ShellCompDirectiveNoSpace
			}
		}
	}
	return comps, directive
}

// Timeout bounds the API calls made while the user waits at TAB:
// an unreachable or slow cloud must cost two seconds, not the client's
// per-request timeout.
const Timeout = 2 * time.Second

// namedItem is one candidate fetched from the API: the name the user types,
// and a short description the shells that support it show next to it.
type namedItem struct{ name, desc string }

// InstanceNames offers the names of the namespace's instances
// (deleted ones left out), e.g. for `instance show <TAB>`.
func InstanceNames(f *cmdutil.Factory) cobra.CompletionFunc {
	return completeFromAPI(f, func(ctx context.Context, c *client.Client) ([]namedItem, error) {
		list, err := c.ListInstances(ctx, false)
		items := make([]namedItem, 0, len(list))
		for _, i := range list {
			items = append(items, namedItem{i.Name, describe(i.State, i.PowerState, onNode(i.Node))})
		}
		return items, err
	})
}

// NetworkNames offers the names of the namespace's networks, for
// `network show <TAB>` and the NET of `instance create -n NET`.
func NetworkNames(f *cmdutil.Factory) cobra.CompletionFunc {
	return completeFromAPI(f, func(ctx context.Context, c *client.Client) ([]namedItem, error) {
		list, err := c.ListNetworks(ctx, false)
		items := make([]namedItem, 0, len(list))
		for _, n := range list {
			items = append(items, namedItem{n.Name, describe(n.Netblock, n.State)})
		}
		return items, err
	})
}

// InterfaceUUIDs offers the UUIDs of the interfaces of the
// namespace's instances, each described by its instance and address, for
// `interface show <TAB>`. sf-client asks every instance for its
// interfaces; the instance list already carries them, so one request.
func InterfaceUUIDs(f *cmdutil.Factory) cobra.CompletionFunc {
	return completeFromAPI(f, func(ctx context.Context, c *client.Client) ([]namedItem, error) {
		list, err := c.ListInstances(ctx, false)
		var items []namedItem
		for _, i := range list {
			for _, ifc := range i.Interfaces {
				items = append(items, namedItem{ifc.UUID, describe(i.Name, ifc.IPv4, ifc.Floating)})
			}
		}
		return items, err
	})
}

// NodeNames offers the cluster's node names, for `node show <TAB>`
// and `instance create --placement <TAB>`.
func NodeNames(f *cmdutil.Factory) cobra.CompletionFunc {
	return completeFromAPI(f, func(ctx context.Context, c *client.Client) ([]namedItem, error) {
		list, err := c.ListNodes(ctx)
		items := make([]namedItem, 0, len(list))
		for _, n := range list {
			items = append(items, namedItem{n.Name, describe(n.State, strings.Join(n.Roles(), ","))})
		}
		return items, err
	})
}

// NamespaceNames offers the namespaces, for --namespace. Only a
// system key may list them; for any other the list fails and, as with every
// API completion, nothing is offered.
func NamespaceNames(f *cmdutil.Factory) cobra.CompletionFunc {
	return completeFromAPI(f, func(ctx context.Context, c *client.Client) ([]namedItem, error) {
		list, err := c.ListNamespaces(ctx)
		items := make([]namedItem, 0, len(list))
		for _, n := range list {
			items = append(items, namedItem{n.Name, ""})
		}
		return items, err
	})
}

// Files offers the shell's own file names, for an argument that is a
// local path (DEST, FILE).
func Files(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return nil, cobra.ShellCompDirectiveDefault
}

// FilesEndingIn offers the shell's file names with one of the extensions
// (without the dot), and directories.
func FilesEndingIn(extensions ...string) cobra.CompletionFunc {
	return func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return extensions, cobra.ShellCompDirectiveFilterFileExt
	}
}

// completeFromAPI turns a list call into a completion function. It never
// fails visibly: no configuration, no API, a refusal or the timeout all mean
// no candidates and no file names (completion runs with stderr discarded,
// and a shell prompt is no place for an error). Names already given as
// arguments are not offered again, and a name shared by several objects is
// offered once.
func completeFromAPI(f *cmdutil.Factory, list func(context.Context, *client.Client) ([]namedItem, error)) cobra.CompletionFunc {
	return func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if f.Client == nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		// A completion request runs Cobra's __complete: the configuration
		// reads the flags of the command being completed.
		f.Command = c
		api, err := f.Client()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		parent := c.Context()
		if parent == nil {
			parent = f.Context
		}
		if parent == nil {
			parent = context.Background()
		}
		ctx, cancel := context.WithTimeout(parent, Timeout)
		defer cancel()
		// Wait for the answer or the deadline, whichever comes first: a
		// step of the call that outlives its context (the client's shared
		// login has a timeout of its own) must not hold the shell. The
		// process ends right after printing, taking the call with it.
		type answer struct {
			items []namedItem
			err   error
		}
		done := make(chan answer, 1)
		go func() {
			items, err := list(ctx, api)
			done <- answer{items, err}
		}()
		var items []namedItem
		select {
		case a := <-done:
			if a.err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			items = a.items
		case <-ctx.Done():
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		seen := make(map[string]bool, len(items)+len(args))
		for _, a := range args {
			seen[a] = true
		}
		slices.SortStableFunc(items, func(a, b namedItem) int { return strings.Compare(a.name, b.name) })
		var comps []cobra.Completion
		for _, it := range items {
			// One candidate is one line, name and description split by a
			// tab, shown on a terminal: a name termtext would change
			// (controls, bidirectional overrides) cannot be offered
			// safely, and a description is sanitised as every terminal
			// line is.
			if it.name == "" || seen[it.name] || !strings.HasPrefix(it.name, toComplete) || termtext.Unsafe(it.name) {
				continue
			}
			seen[it.name] = true
			comps = append(comps, cobra.CompletionWithDesc(it.name, termtext.Line(it.desc)))
		}
		return comps, cobra.ShellCompDirectiveNoFileComp
	}
}

// describe joins the non-empty parts of a candidate's description.
func describe(parts ...string) string {
	var keep []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			keep = append(keep, p)
		}
	}
	return strings.Join(keep, ", ")
}

func onNode(node string) string {
	if node == "" {
		return ""
	}
	return "on " + node
}

// ArtifactNames offers the names of the artifacts the caller can
// see (labels left out: they have their own commands), for `artifact show
// <TAB>` and the other artifact verbs.
func ArtifactNames(f *cmdutil.Factory) cobra.CompletionFunc {
	return completeFromAPI(f, func(ctx context.Context, c *client.Client) ([]namedItem, error) {
		list, err := c.ListArtifacts(ctx, false)
		items := make([]namedItem, 0, len(list))
		for _, a := range list {
			if a.ArtifactType != client.ArtifactTypeLabel {
				items = append(items, namedItem{a.Name(), describe(a.ArtifactType, a.State)})
			}
		}
		return items, err
	})
}

// LabelNames offers the labels' names, for `label update <TAB>`.
func LabelNames(f *cmdutil.Factory) cobra.CompletionFunc {
	return completeFromAPI(f, func(ctx context.Context, c *client.Client) ([]namedItem, error) {
		list, err := c.ListLabels(ctx, false)
		items := make([]namedItem, 0, len(list))
		for _, a := range list {
			items = append(items, namedItem{a.Name(), describe(a.Namespace, a.State)})
		}
		return items, err
	})
}

// BlobUUIDs offers the blobs of the artifacts the caller can see
// (GET /blobs is admin only; every caller can list artifacts), described
// by the artifact and version naming them.
func BlobUUIDs(f *cmdutil.Factory) cobra.CompletionFunc {
	return completeFromAPI(f, func(ctx context.Context, c *client.Client) ([]namedItem, error) {
		list, err := c.ListArtifacts(ctx, false)
		var items []namedItem
		seen := map[string]bool{}
		for _, a := range list {
			for _, idx := range a.VersionIndexes() {
				b := a.Blobs[strconv.Itoa(idx)]
				if !seen[b.UUID] {
					seen[b.UUID] = true
					items = append(items, namedItem{b.UUID, describe(a.Name(), "v"+strconv.Itoa(idx))})
				}
			}
		}
		return items, err
	})
}
