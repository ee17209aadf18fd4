package namespace

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
	"github.com/shakenfist/shakectl/cmd/secret"
	"github.com/shakenfist/shakectl/output"
)

// keyFlags are add-key's and update-key's: where the secret comes from,
// and the 2026 expiry.
type keyFlags struct {
	keyFile, expiry string
}

// keyVerb is what differs between adding and rotating a key.
type keyVerb func(c *client.Client, s *cmdutil.Session, ns, name string, secret client.Secret, expiry time.Time) (*client.NamespaceKey, error)

// newKeyCmd builds add-key or update-key: the secret is read from stdin or
// --key-file (never argv, never printed), the answer is the key's name.
func newKeyCmd(f *cmdutil.Factory, decl *cobra.Command, send keyVerb) *cobra.Command {
	var kf keyFlags
	decl.PreRunE = func(_ *cobra.Command, args []string) error {
		// A name is shown by namespace show and typed back to delete-key:
		// text, as the key itself must be.
		if strings.ContainsFunc(args[1], unicode.IsControl) || !utf8.ValidString(args[1]) {
			return cmdutil.UsageErrorf("KEYNAME %q holds a control character or is not UTF-8: a key's name is text", args[1])
		}
		return nil
	}
	c := cmdutil.Verb(f, decl, func(s *cmdutil.Session, args []string) error {
		expiry, err := parseExpiry(kf.expiry, s.F.Now)
		if err != nil {
			return err
		}
		key, err := secret.Read(s.Ctx, s.F.IOStreams, kf.keyFile, "key for "+args[0]+"/"+args[1])
		if err != nil {
			return err
		}
		k, err := send(s.Client, s, args[0], args[1], key, expiry)
		if err != nil {
			return err
		}
		// The answer names the key; the secret stays out of every format
		// (client.Secret marshals as "[redacted]", and is not shown).
		raw := map[string]any{"namespace": args[0], "key_name": k.Name}
		if !expiry.IsZero() {
			raw["expiry"] = expiry.Unix()
		}
		d := output.Detail{Raw: cmdutil.RawOf(nil, raw), Fields: []output.Field{
			{Name: "namespace", Value: args[0]}, {Name: "key_name", Value: k.Name},
		}}
		if !expiry.IsZero() {
			d.Fields = append(d.Fields, output.Field{Name: "expiry", Value: expiry.UTC().Format(time.RFC3339)})
		}
		return s.PrintDetail(d)
	})
	builders.Args(c, "NAMESPACE KEYNAME", complete.NamespaceNames(f))
	c.Flags().StringVar(&kf.keyFile, "key-file", "", "read the key's secret from this file (- or unset: stdin)")
	c.Flags().StringVar(&kf.expiry, "expiry", "", "when the key lapses: a duration from now (720h) or an RFC 3339 time (2026 servers)")
	return c
}

// parseExpiry reads --expiry: "" is never, a Go duration is from now, else
// an RFC 3339 time, which must be in the future (the server refuses a
// past one).
func parseExpiry(v string, now func() time.Time) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	if now == nil {
		now = time.Now
	}
	if d, err := time.ParseDuration(v); err == nil {
		if d <= 0 {
			return time.Time{}, cmdutil.UsageErrorf("--expiry %s: want a positive duration", v)
		}
		return now().Add(d), nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return time.Time{}, cmdutil.UsageErrorf("--expiry %q is neither a duration (720h) nor an RFC 3339 time (2027-01-01T00:00:00Z)", v)
	}
	if !t.After(now()) {
		return time.Time{}, cmdutil.UsageErrorf("--expiry %s is not in the future", v)
	}
	return t, nil
}
