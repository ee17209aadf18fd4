package instance

import (
	"context"
	"encoding/base64"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
	"github.com/shakenfist/shakectl/internal/userfile"
	"github.com/shakenfist/shakectl/output"
)

// CreateOptions are the arguments and flags of `instance create`,
// as given on the command line.
type CreateOptions struct {
	Name, CPUs, Memory string
	Disks              []string
	DiskSpecs          []string
	Networks           []string
	NetworkSpecs       []string
	Floated            []string
	VideoSpec          string
	ConfigDrive        string
	UEFI, SecureBoot   bool
	NVRAMTemplate      string
	SideChannels       []string
	Metadata           []string
	SSHKeyFile         string
	UserDataFile       string
	Placement          string
	Namespace          string
	// The affinity flags: tags a node must have, must not have, should
	// have, should not have (the 2026 binary form's require_with_tag,
	// require_without_tag, prefer_with_tag, prefer_without_tag).
	RequireTags, ForbidTags, PreferTags, AvoidTags []string

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
	for _, d := range o.DiskSpecs {
		disk, err := client.ParseDiskSpecLong(d)
		if err != nil {
			return req, cmdutil.UsageErrorf("-D: %s", err)
		}
		req.Disk = append(req.Disk, disk)
	}
	// sf-client's order (client-python 6c25293c instance_create): floated
	// interfaces first, then -n, then -N.
	for _, nets := range []struct {
		flag  string
		specs []string
		parse func(string) (client.NetworkRequest, error)
	}{
		{"-f", o.Floated, client.ParseFloatedSpec},
		{"-n", o.Networks, client.ParseNetworkSpec},
		{"-N", o.NetworkSpecs, client.ParseNetworkSpecLong},
	} {
		for _, n := range nets.specs {
			nw, err := nets.parse(n)
			if err != nil {
				return req, cmdutil.UsageErrorf("%s: %s", nets.flag, err)
			}
			req.Network = append(req.Network, nw)
		}
	}
	if o.VideoSpec != "" {
		v, err := client.ParseVideoSpec(o.VideoSpec)
		if err != nil {
			return req, cmdutil.UsageErrorf("-V: %s", err)
		}
		req.Video = &v
	}
	switch o.ConfigDrive {
	case "", "openstack-disk", "none":
		req.ConfigDrive = o.ConfigDrive
	default:
		return req, cmdutil.UsageErrorf("--configdrive %q: want openstack-disk or none", o.ConfigDrive)
	}
	// sf-client's help says --secure-boot implies UEFI boot; the server
	// refuses secure boot without it.
	req.UEFI, req.SecureBoot = o.UEFI || o.SecureBoot, o.SecureBoot
	req.NVRAMTemplate = o.NVRAMTemplate
	req.SideChannels = o.SideChannels
	if req.Metadata, err = client.ParseMetadata(o.Metadata); err != nil {
		return req, cmdutil.UsageErrorf("-m: %s", err)
	}
	if aff, err := o.binaryAffinity(); err != nil {
		return req, err
	} else if aff != nil {
		if _, dup := req.Metadata["affinity"]; dup {
			return req, cmdutil.UsageErrorf("give affinity either as -m affinity=… or with --require-tag/--forbid-tag/--prefer-tag/--avoid-tag, not both")
		}
		if req.Metadata == nil {
			req.Metadata = map[string]any{}
		}
		req.Metadata["affinity"] = aff
	}
	if o.SSHKeyFile != "" {
		raw, err := userfile.Read(o.Context, o.In, o.SSHKeyFile, userfile.SSHKey("--ssh-key-file"))
		if err != nil {
			return req, cmdutil.ReadFileError(err)
		}
		req.SSHKey = strings.TrimSpace(string(raw))
		if notText(req.SSHKey) || strings.ContainsFunc(req.SSHKey, func(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\r' && r != '\t' }) {
			return req, cmdutil.UsageErrorf("--ssh-key-file %s holds a NUL or another control character, or is not UTF-8: a public key is text", o.SSHKeyFile)
		}
		if req.SSHKey == "" || strings.Contains(req.SSHKey, "PRIVATE KEY") {
			return req, cmdutil.UsageErrorf("--ssh-key-file %s: want a public key (one line such as \"ssh-ed25519 AAAA... user@host\")", o.SSHKeyFile)
		}
	}
	if o.UserDataFile != "" {
		raw, err := userfile.Read(o.Context, o.In, o.UserDataFile, userfile.UserData("--user-data-file"))
		if err != nil {
			return req, cmdutil.ReadFileError(err)
		}
		if len(raw) > 0 {
			req.UserData = base64.StdEncoding.EncodeToString(raw)
		}
	}
	return req, nil
}

// binaryAffinity is the affinity flags in the 2026 binary form (server
// docs/developer_guide/api_reference/instances.md @0228e1d7: each key a
// list of non-empty tags; the require_* pair is hard, refused with 409
// when no node meets it), nil when no flag was given.
func (o *CreateOptions) binaryAffinity() (map[string]any, error) {
	out := map[string]any{}
	for _, f := range []struct {
		flag, key string
		tags      []string
	}{
		{"--require-tag", "require_with_tag", o.RequireTags},
		{"--forbid-tag", "require_without_tag", o.ForbidTags},
		{"--prefer-tag", "prefer_with_tag", o.PreferTags},
		{"--avoid-tag", "prefer_without_tag", o.AvoidTags},
	} {
		if len(f.tags) == 0 {
			continue
		}
		list := make([]any, 0, len(f.tags))
		for _, t := range f.tags {
			if strings.TrimSpace(t) == "" || strings.ContainsAny(t, " \t\r\n") {
				return nil, cmdutil.UsageErrorf("%s %q: want a node tag (no spaces)", f.flag, t)
			}
			list = append(list, t)
		}
		out[f.key] = list
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// weightedAffinity rewrites the binary form for a 2024 server, which takes
// only integer weights per tag ({"webserver": -1}: shakenfist da448b1a
// external_api/instance.py; they rank nodes, nothing is hard): a
// preferred tag weighs 1, an avoided one -1. Hard constraints have no 2024
// form, so they are refused rather than sent as a preference.
func weightedAffinity(aff map[string]any) (map[string]any, error) {
	if aff["require_with_tag"] != nil || aff["require_without_tag"] != nil {
		return nil, &client.NotSupportedError{Feature: "hard affinity (--require-tag, --forbid-tag): a 2024 server only ranks nodes by weighted tags"}
	}
	out := map[string]any{}
	for key, weight := range map[string]int{"prefer_with_tag": 1, "prefer_without_tag": -1} {
		tags, _ := aff[key].([]any)
		for _, t := range tags {
			out[t.(string)] = weight
		}
	}
	return out, nil
}

func positiveInt(s, name, want string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 1 {
		return 0, cmdutil.UsageErrorf("%s must be %s, at least 1; got %q", name, want, s)
	}
	return n, nil
}

// NewCmdCreate builds `shakectl instance create`. runF, when not
// nil, replaces the run (tests of the flag parsing).
func NewCmdCreate(f *cmdutil.Factory, runF func(*CreateOptions) error) *cobra.Command {
	o := &CreateOptions{In: f.IOStreams.In, Context: f.Context}
	var req client.CreateInstanceRequest
	c := &cobra.Command{
		Use:   "create",
		Short: "Create an instance",
		Long: `Create an instance with CPUS vCPUs and MEMORY MiB of memory, as sf-client does.

Disks, networks and metadata repeat:
  -d SIZE[@BASE]   a disk of SIZE GiB, optionally from a base image
                   (e.g. 20@debian:12, or a URL)
  -D KEY=V,...     a disk in sf-client's long form: size, base, bus
                   (virtio, sata, scsi, usb, nvme), type (disk, cdrom)
  -n NET[@ADDR]    an interface on network NET (uuid or name), optionally
                   with a fixed IP address
  -f NET[@ADDR]    the same, with a floating address
  -N KEY=V,...     an interface in long form: network_uuid (required),
                   address, macaddress, model, float=true
  -m KEY=VALUE     metadata; "tags" takes a JSON list of strings and
                   "affinity" a JSON object (below). Anything else is a
                   string

Affinity places the instance by node tags. The flags repeat:
  --require-tag TAG  only on a node with TAG       (require_with_tag)
  --forbid-tag TAG   never on a node with TAG      (require_without_tag)
  --prefer-tag TAG   rather on a node with TAG     (prefer_with_tag)
  --avoid-tag TAG    rather not on a node with TAG (prefer_without_tag)
They send the 2026 binary form, metadata.affinity = {"require_with_tag":
["gpu"], …}, the same as -m 'affinity={"require_with_tag":["gpu"]}'. A
hard constraint no node meets is refused with 409 (exit 69), checked after
the resource stages, so a full cluster answers 507 first. The older
weighted form, -m 'affinity={"fastdisk":10}', is deprecated on 2026 servers
(accepted, the weight ignored); it is all a 2024 server takes, so for a
2024 server (told by its capabilities) --prefer-tag and --avoid-tag are
sent as weights 1 and -1, and --require-tag/--forbid-tag are refused: a
2024 server has no hard affinity.

--uefi, --secure-boot (which implies --uefi), --nvram-template,
-V/--videospec, --configdrive and -s/--side-channel are sf-client's; left
out, the server's defaults apply (BIOS boot, a cirrus card with 16 MiB,
an openstack-disk config drive, the sf-agent side channel).

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
  shakectl instance create web3 2 2048 -d 20@debian:12 --prefer-tag fastdisk
  shakectl instance create gpu1 8 16384 -d 40@ubuntu:24.04 \
      --require-tag gpu --forbid-tag db --async block
  shakectl instance create web2 2 2048 -d 20@debian:12 --retry-transient-capacity --timeout 2m`,
		// The request is made of the flags before anything is resolved
		// or sent: a mistake in them is a usage error with nothing sent.
		PreRunE: func(_ *cobra.Command, args []string) (err error) {
			o.Name, o.CPUs, o.Memory = args[0], args[1], args[2]
			if runF != nil {
				return nil
			}
			req, err = o.Request()
			return err
		},
	}
	if runF != nil {
		cmdutil.Local(c, func(*cobra.Command, []string) error { return runF(o) })
	} else {
		cmdutil.VerbWith(f, c, func(cfg *cmdutil.Config) {
			if cfg.Namespace == "" && o.Namespace != "" {
				cfg.Namespace = o.Namespace
			}
		}, func(s *cmdutil.Session, _ []string) error { return runCreate(s, o, req) })
	}
	builders.Args(c, "NAME CPUS MEMORY")
	fl := c.Flags()
	fl.StringArrayVarP(&o.Disks, "disk", "d", nil, "a disk, SIZE[@BASE] in GiB (repeat for more)")
	fl.StringArrayVarP(&o.DiskSpecs, "diskspec", "D", nil, "a disk in long form, size=GiB,base=IMAGE,bus=virtio,type=disk (repeat for more)")
	fl.StringArrayVarP(&o.Networks, "network", "n", nil, "a network interface, NET[@ADDR] (repeat for more)")
	fl.StringArrayVarP(&o.NetworkSpecs, "networkspec", "N", nil, "an interface in long form, network_uuid=NET,address=IP,macaddress=MAC,model=virtio,float=true (repeat)")
	fl.StringArrayVarP(&o.Floated, "floated", "f", nil, "as -n, with a floating address (repeat for more)")
	fl.StringVarP(&o.VideoSpec, "videospec", "V", "", "the video card, model=cirrus,memory=16384[,vdi=spice]")
	fl.StringVar(&o.ConfigDrive, "configdrive", "", "the config drive: openstack-disk (the server's default) or none")
	fl.BoolVar(&o.UEFI, "uefi", false, "boot with UEFI instead of BIOS")
	fl.BoolVar(&o.SecureBoot, "secure-boot", false, "UEFI secure boot (implies --uefi)")
	fl.StringVar(&o.NVRAMTemplate, "nvram-template", "", "a label or blob UUID to use as the UEFI NVRAM template")
	fl.StringArrayVarP(&o.SideChannels, "side-channel", "s", nil, "a named side channel inside the guest, e.g. sf-agent (repeat for more)")
	fl.StringArrayVarP(&o.Metadata, "metadata", "m", nil, "metadata KEY=VALUE; tags and affinity take JSON (repeat for more)")
	fl.StringVarP(&o.SSHKeyFile, "ssh-key-file", "i", "", "a public SSH key file to put into the instance")
	fl.StringVarP(&o.UserDataFile, "user-data-file", "u", "", "a cloud-init user data file (sent base64-encoded; - reads stdin)")
	fl.StringVarP(&o.Placement, "placement", "p", "", "the node to place the instance on (name; a 2026 server also takes its UUID)")
	fl.StringArrayVar(&o.RequireTags, "require-tag", nil, "place only on a node with this tag (hard affinity; repeat)")
	fl.StringArrayVar(&o.ForbidTags, "forbid-tag", nil, "never place on a node with this tag (hard affinity; repeat)")
	fl.StringArrayVar(&o.PreferTags, "prefer-tag", nil, "rather place on a node with this tag (soft affinity; repeat)")
	fl.StringArrayVar(&o.AvoidTags, "avoid-tag", nil, "rather not place on a node with this tag (soft affinity; repeat)")
	fl.StringVar(&o.Namespace, "namespace", "", "the namespace to create the instance in")
	cmdutil.Must(c.RegisterFlagCompletionFunc("network", complete.NetworkNames(f)))
	cmdutil.Must(c.RegisterFlagCompletionFunc("floated", complete.NetworkNames(f)))
	cmdutil.Must(c.RegisterFlagCompletionFunc("configdrive", cobra.FixedCompletions([]string{"openstack-disk", "none"}, cobra.ShellCompDirectiveNoFileComp)))
	for _, name := range []string{"diskspec", "networkspec", "videospec", "nvram-template", "side-channel"} {
		cmdutil.Must(c.RegisterFlagCompletionFunc(name, cobra.NoFileCompletions))
	}
	cmdutil.Must(c.RegisterFlagCompletionFunc("placement", complete.NodeNames(f)))
	cmdutil.Must(c.RegisterFlagCompletionFunc("namespace", complete.NamespaceNames(f)))
	cmdutil.Must(c.RegisterFlagCompletionFunc("disk", cobra.NoFileCompletions))
	cmdutil.Must(c.RegisterFlagCompletionFunc("metadata", cobra.NoFileCompletions))
	for _, name := range []string{"require-tag", "forbid-tag", "prefer-tag", "avoid-tag"} {
		cmdutil.Must(c.RegisterFlagCompletionFunc(name, cobra.NoFileCompletions))
	}
	return c
}

func (o *CreateOptions) usesAffinityFlags() bool {
	return len(o.RequireTags)+len(o.ForbidTags)+len(o.PreferTags)+len(o.AvoidTags) > 0
}

func runCreate(s *cmdutil.Session, o *CreateOptions, req client.CreateInstanceRequest) error {
	start := time.Now()

	if aff, ok := req.Metadata["affinity"].(map[string]any); ok && o.usesAffinityFlags() {
		// The flags speak the 2026 binary form; a 2024 server wants
		// weights. Its capabilities tell the generations apart: only a
		// 2026 server advertises network-delete-async (external_api/app.py,
		// 2026 public copy). A server whose page cannot be read gets the
		// binary form, and its own answer decides.
		caps, err := s.Client.Capabilities(s.Ctx)
		if err == nil && caps.Known && !caps.Has(client.CapNetworkDeleteAsync) {
			if req.Metadata["affinity"], err = weightedAffinity(aff); err != nil {
				return err
			}
		}
	}

	inst, err := s.Client.CreateInstance(s.Ctx, req)
	if err != nil {
		return err
	}
	if s.Cfg.Async.Waits() {
		// Pause waits for the instance to leave "initial", forgiving its
		// budget; block waits for created.
		var enough func(client.State) bool
		if s.Cfg.Async == cmdutil.AsyncPause {
			enough = client.State.LeftInitial
		}
		wait := builders.ForState(builders.WatchedInstance(s.Client), req.Name, client.StateCreated, enough)
		wait.Start, wait.Last, wait.OnTimeout = start, inst, s.Cfg.Async.OnTimeout()
		inst, err = builders.Await(s, wait)
	}
	// The node a 2026 server names by UUID is shown with its name.
	return builders.PrintResult(s, func(i *client.Instance) output.Detail {
		var names nodeNames
		if rendersFields(s) {
			names = resolveNodeNames(s, *i)
		}
		return instanceResourceWith(names).Detail(i)
	}, inst, err)
}
