package instance

import (
	"context"
	"encoding/base64"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/internal/cli/cmdutil"
	"github.com/shakenfist/shakectl/internal/userfile"
	"github.com/shakenfist/shakectl/output"
)

// CreateOptions are the arguments and flags of `instance create`,
// as given on the command line.
type CreateOptions struct {
	Name, CPUs, Memory string
	Disks              []string
	Networks           []string
	Metadata           []string
	SSHKeyFile         string
	UserDataFile       string
	Placement          string
	Namespace          string

	// In is where -u - reads user data from.
	In io.Reader
	// Context ends a read of standard input.
	Context context.Context
}

// Request turns the options into the body of POST /instances, with usage
// errors naming what is wrong. Unset optional fields stay empty and are
// omitted from the JSON (never sent as "").
func (o *CreateOptions) Request() (client.CreateInstanceRequest, error) {
	req := client.CreateInstanceRequest{Name: o.Name, PlacedOn: o.Placement, Namespace: o.Namespace}
	var err error
	if req.CPUs, err = positiveInt(o.CPUs, "CPUS", "a whole number of vCPUs"); err != nil {
		return req, err
	}
	if req.Memory, err = positiveInt(o.Memory, "MEMORY", "a whole number of MiB, e.g. 2048"); err != nil {
		return req, err
	}
	for _, d := range o.Disks {
		disk, err := client.ParseDiskSpec(d)
		if err != nil {
			return req, cmdutil.UsageErrorf("-d: %s", err)
		}
		req.Disk = append(req.Disk, disk)
	}
	for _, n := range o.Networks {
		nw, err := client.ParseNetworkSpec(n)
		if err != nil {
			return req, cmdutil.UsageErrorf("-n: %s", err)
		}
		req.Network = append(req.Network, nw)
	}
	if req.Metadata, err = client.ParseMetadata(o.Metadata); err != nil {
		return req, cmdutil.UsageErrorf("-m: %s", err)
	}
	if o.SSHKeyFile != "" {
		raw, err := userfile.Read(o.Context, o.In, o.SSHKeyFile, userfile.Bound{Flag: "--ssh-key-file", Max: maxSSHKey})
		if err != nil {
			return req, &cmdutil.UsageError{Msg: err.Error()}
		}
		req.SSHKey = strings.TrimSpace(string(raw))
		if req.SSHKey == "" || strings.Contains(req.SSHKey, "PRIVATE KEY") {
			return req, cmdutil.UsageErrorf("--ssh-key-file %s: want a public key (one line such as \"ssh-ed25519 AAAA... user@host\")", o.SSHKeyFile)
		}
	}
	if o.UserDataFile != "" {
		raw, err := userfile.Read(o.Context, o.In, o.UserDataFile, userfile.Bound{Flag: "--user-data-file"})
		if err != nil {
			return req, &cmdutil.UsageError{Msg: err.Error()}
		}
		if len(raw) > 0 {
			req.UserData = base64.StdEncoding.EncodeToString(raw)
		}
	}
	return req, nil
}

func positiveInt(s, name, want string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 1 {
		return 0, cmdutil.UsageErrorf("%s must be %s, at least 1; got %q", name, want, s)
	}
	return n, nil
}

// maxSSHKey bounds --ssh-key-file: a public key is one line; a file far
// larger is not one.
const maxSSHKey = 64 << 10

// NewCmdCreate builds `shakectl instance create`. runF, when not
// nil, replaces the run (tests of the flag parsing).
func NewCmdCreate(f *cmdutil.Factory, runF func(*CreateOptions) error) *cobra.Command {
	o := &CreateOptions{In: f.IOStreams.In, Context: f.Context}
	c := &cobra.Command{
		Use:   "create NAME CPUS MEMORY",
		Short: "Create an instance",
		Long: `Create an instance with CPUS vCPUs and MEMORY MiB of memory, as sf-client does.

Disks, networks and metadata repeat:
  -d SIZE[@BASE]   a disk of SIZE GiB, optionally from a base image
                   (e.g. 20@debian:12, or a URL)
  -n NET[@ADDR]    an interface on network NET (uuid or name), optionally
                   with a fixed IP address
  -m KEY=VALUE     metadata; "tags" takes a JSON list of strings and
                   "affinity" a JSON object of integer weights per tag
                   (soft: they rank nodes, e.g. {"fastdisk":10}); servers
                   that follow the capacity-refusal contract also take hard
                   constraints (require_with_tag, require_without_tag),
                   refused with 409 when no node meets them. Anything else
                   is a string

A network named with -n must be created: while it is still initial the
server answers 406, and shakectl repeats the create once a second within
the --async budget, as sf-client does.

--async decides whether create waits for the instance:
  continue  return as soon as the server accepted the create
  pause     (default) wait up to 60s while it is initial/preflight/creating, then
            print it as it is
  block     wait until it is created (up to 1h); an error state fails
--timeout replaces the 60s/1h budget.

When the cluster is full the server refuses with HTTP 507. Servers before
the capacity-refusal contract send only the scheduler's message (exit 69,
with a hint read from it). A transient
refusal (exit code 75) may succeed later; --retry-transient-capacity waits
as the server suggests (Retry-After, at most 5 attempts in all, within the
deadline) and prints each retry on stderr. A refusal waiting cannot fix
(exit code 69) names its stage and what to change.

--namespace here is the namespace to create the instance in. When no
namespace is configured otherwise (SHAKENFIST_NAMESPACE, config file),
shakectl also authenticates to it.`,
		Example: `  shakectl instance create web1 2 2048 -d 20@debian:12 -n net1
  shakectl instance create db1 4 8192 -d 50@debian:12 -d 200 -n net1@10.0.0.5 \
      -i ~/.ssh/id_ed25519.pub -u cloud-init.yaml -m 'tags=["db","prod"]'
  shakectl instance create web3 2 2048 -d 20@debian:12 -m 'affinity={"fastdisk":10}'
  shakectl instance create gpu1 8 16384 -d 40@ubuntu:24.04 \
      -m 'affinity={"require_with_tag":["gpu"]}' --async block   # seed servers
  shakectl instance create web2 2 2048 -d 20@debian:12 --retry-transient-capacity --timeout 2m`,
		Args: func(c *cobra.Command, args []string) error {
			return cmdutil.RefArgs("NAME", "CPUS", "MEMORY")(c, args)
		},
		RunE: func(_ *cobra.Command, args []string) error {
			o.Name, o.CPUs, o.Memory = args[0], args[1], args[2]
			if runF != nil {
				return runF(o)
			}
			return runCreate(f, o)
		},
	}
	fl := c.Flags()
	fl.StringArrayVarP(&o.Disks, "disk", "d", nil, "a disk, SIZE[@BASE] in GiB (repeat for more)")
	fl.StringArrayVarP(&o.Networks, "network", "n", nil, "a network interface, NET[@ADDR] (repeat for more)")
	fl.StringArrayVarP(&o.Metadata, "metadata", "m", nil, "metadata KEY=VALUE; tags and affinity take JSON (repeat for more)")
	fl.StringVarP(&o.SSHKeyFile, "ssh-key-file", "i", "", "a public SSH key file to put into the instance")
	fl.StringVarP(&o.UserDataFile, "user-data-file", "u", "", "a cloud-init user data file (sent base64-encoded; - reads stdin)")
	fl.StringVarP(&o.Placement, "placement", "p", "", "the node to place the instance on")
	fl.StringVar(&o.Namespace, "namespace", "", "the namespace to create the instance in")
	cmdutil.Must(c.RegisterFlagCompletionFunc("network", cmdutil.CompleteNetworkNames(f)))
	cmdutil.Must(c.RegisterFlagCompletionFunc("placement", cmdutil.CompleteNodeNames(f)))
	cmdutil.Must(c.RegisterFlagCompletionFunc("namespace", cmdutil.CompleteNamespaceNames(f)))
	cmdutil.Must(c.RegisterFlagCompletionFunc("disk", cobra.NoFileCompletions))
	cmdutil.Must(c.RegisterFlagCompletionFunc("metadata", cobra.NoFileCompletions))
	c.ValidArgsFunction = cobra.NoFileCompletions
	return c
}

func runCreate(f *cmdutil.Factory, o *CreateOptions) error {
	req, err := o.Request()
	if err != nil {
		return err
	}
	start := time.Now()
	s, err := cmdutil.NewSession(f, func(cfg *cmdutil.Config) {
		if cfg.Namespace == "" && o.Namespace != "" {
			cfg.Namespace = o.Namespace
		}
	})
	if err != nil {
		return err
	}
	defer s.Close()

	ctx, cancel := s.RetryContext()
	defer cancel()
	inst, err := s.Client.CreateInstance(ctx, req)
	if err != nil {
		return err
	}
	switch s.Cfg.Async {
	case "pause":
		inst, err = cmdutil.WaitFor(s, cmdutil.WatchedInstance(s.Client), start, inst, req.Name, client.StateCreated, client.State.LeftInitial, true)
	case "block":
		inst, err = cmdutil.WaitFor(s, cmdutil.WatchedInstance(s.Client), start, inst, req.Name, client.StateCreated, cmdutil.UntilState(client.StateCreated), false)
	}
	// The node a 2026 server names by UUID is shown with its name.
	return cmdutil.PrintResult(s, func(i *client.Instance) output.Detail {
		var names nodeNames
		if rendersFields(s) {
			names = resolveNodeNames(s, *i)
		}
		return instanceResourceWith(names).Detail(i)
	}, inst, err)
}
