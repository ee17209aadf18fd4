package claim

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
	"github.com/shakenfist/shakectl/internal/numflag"
)

// NewCmd groups the claim commands.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	c := builders.NewGroupCmd(builders.GroupSpec{
		Noun:  "claim",
		Short: "Capacity claims: capacity promised to a namespace (2026 servers)",
		Long: `A capacity claim promises a namespace up to --cpus vCPUs, --memory MiB and
--disk GB until it expires (shakenfist 2026 auth.py; system namespace
only). A namespace holds at most one active claim.

The server's refusals have exit codes of their own: a 507 (the cluster
cannot promise that much; the claim routes send no transient marker) is
permanent, exit 69; a 503 ("please retry") is transient, exit 75; a 409
says the namespace already holds a claim, or that an update would shrink
the claim below what it uses (exit 1).`,
		Example: `  shakectl namespace claim create ci --cpus 40 --memory 81920 --disk 2000 --expiry 24h
  shakectl namespace claim list ci
  shakectl namespace claim update ci 0b2b4f76-0a1b-4d0f-8b3f-6f1a2c4d5e6f --cpus 48`,
	}, NewCmdList(f), NewCmdShow(f), NewCmdCreate(f), NewCmdUpdate(f), NewCmdDelete(f))
	return c
}

// claimResource is 2026 auth.py's claim_example: limits, use, coverage
// and expiry.
var claimResource = builders.Resource[client.Claim]{
	Singular: "claim", Plural: "claims",
	Columns: []builders.Column[client.Claim]{
		builders.Field("UUID", func(c *client.Claim) string { return c.UUID }),
		builders.StateField("STATE", func(c *client.Claim) string { return c.State }),
		builders.Field("COVERAGE", func(c *client.Claim) string { return c.CoverageState }),
		builders.Field("CPUS", func(c *client.Claim) string { return usedOf(c.UsedCPUs, c.LimitCPUs) }),
		builders.Field("MEMORY_MB", func(c *client.Claim) string { return usedOf(c.UsedMemoryMB, c.LimitMemoryMB) }),
		builders.Field("DISK_GB", func(c *client.Claim) string { return usedOf(c.UsedDiskGB, c.LimitDiskGB) }),
		builders.Field("EXPIRES", func(c *client.Claim) string { return builders.FormatUnix(c.ExpiresAt) }),
	},
	Fields: []builders.Column[client.Claim]{
		builders.Field("uuid", func(c *client.Claim) string { return c.UUID }),
		builders.Field("namespace", func(c *client.Claim) string { return c.Namespace }),
		builders.StateField("state", func(c *client.Claim) string { return c.State }),
		builders.Field("coverage_state", func(c *client.Claim) string { return c.CoverageState }),
		builders.Field("cpus", func(c *client.Claim) string { return usedOf(c.UsedCPUs, c.LimitCPUs) }),
		builders.Field("memory_mb", func(c *client.Claim) string { return usedOf(c.UsedMemoryMB, c.LimitMemoryMB) }),
		builders.Field("disk_gb", func(c *client.Claim) string { return usedOf(c.UsedDiskGB, c.LimitDiskGB) }),
		builders.Field("expires_at", func(c *client.Claim) string { return builders.FormatUnix(c.ExpiresAt) }),
		builders.Field("updated_at", func(c *client.Claim) string { return builders.FormatUnix(c.UpdatedAt) }),
	},
	Raw: func(c *client.Claim) json.RawMessage { return cmdutil.RawOf(c.Raw, c) },
}

// usedOf shows use against limit, "12/40"; the use may carry a fraction.
func usedOf(used float64, limit int) string {
	return strconv.FormatFloat(used, 'f', -1, 64) + "/" + strconv.Itoa(limit)
}

// limitFlags are create's and update's limits. Unset ones are left out of
// an update's field mask.
type limitFlags struct {
	cpus, memory, disk int
	expiry             time.Duration
}

const (
	maxClaimLimit  = 1 << 40
	maxClaimExpiry = 10 * 366 * 24 * time.Hour
)

var limitNames = []string{"cpus", "memory", "disk", "expiry"}

func (l *limitFlags) add(c *cobra.Command) {
	fl := c.Flags()
	// The bounds sim/cluster's claims.go checks (the reference records
	// none for the real server): limits 0 to 2^40, an expiry of 1s
	// (expires_in_seconds >= 1) to ten years.
	limit := numflag.Between(0, maxClaimLimit)
	numflag.Var(fl, &l.cpus, "cpus", 0, limit, "the vCPUs promised")
	numflag.Var(fl, &l.memory, "memory", 0, limit, "the memory promised, in MiB")
	numflag.Var(fl, &l.disk, "disk", 0, limit, "the disk promised, in GB")
	numflag.Var(fl, &l.expiry, "expiry", 0, numflag.Between(time.Second, maxClaimExpiry), "how long the claim lasts from now, e.g. 24h (the cluster's clock)")
}

// missing names the limit flags not given, as a usage error (exit 2)
// before anything is sent.
func missing(c *cobra.Command) error {
	var out []string
	for _, name := range limitNames {
		if !c.Flags().Changed(name) {
			out = append(out, "--"+name)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return cmdutil.UsageErrorf("a claim needs every limit and its expiry: missing %s", strings.Join(out, ", "))
}

// newClaimCmd builds a verb on NAMESPACE CLAIM that prints the claim the
// call answers (show, delete).
func newClaimCmd(f *cmdutil.Factory, decl *cobra.Command, call func(*client.Client, context.Context, string, string) (*client.Claim, error)) *cobra.Command {
	c := cmdutil.Verb(f, decl, func(s *cmdutil.Session, args []string) error {
		c, err := call(s.Client, s.Ctx, args[0], args[1])
		if err != nil {
			return err
		}
		return printClaim(s, c)
	})
	return builders.Args(c, "NAMESPACE CLAIM", complete.NamespaceNames(f))
}

func printClaim(s *cmdutil.Session, c *client.Claim) error {
	return s.PrintDetail(claimResource.Detail(c))
}
