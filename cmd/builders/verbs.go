package builders

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/shakenfist/shakectl/client"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/cmd/complete"
	"github.com/shakenfist/shakectl/output"
)

// GroupSpec is a noun's command group: "<noun> <command>", also spelled
// as the plural.
type GroupSpec struct {
	Noun, Short, Long, Example string
}

// NewGroupCmd builds the group of a noun's verbs.
func NewGroupCmd(spec GroupSpec, verbs ...*cobra.Command) *cobra.Command {
	c := &cobra.Command{
		Use:     spec.Noun + " <command>",
		Aliases: []string{spec.Noun + "s"},
		Short:   spec.Short,
		Long:    spec.Long,
		Example: spec.Example,
	}
	c.AddCommand(verbs...)
	return c
}

// RefDetailSpec is a verb on one object that prints the object the server
// answers with: show, share, unshare, delete.
type RefDetailSpec[T any] struct {
	Use, Arg, Short, Long, Example string
	Complete                       cobra.CompletionFunc
	// Check, when set, judges the reference before any request.
	Check func(ref string) error
	Call  func(c *client.Client, ctx context.Context, ref string) (*T, error)
	// Gone names the object when the server may answer nothing (a delete's
	// 200 null): that prints nothing and says "<Gone> REF was already
	// deleted" on stderr.
	Gone string
}

// NewRefDetailCmd builds "<noun> <use> REF", printing r's detail of what
// the call answers.
func NewRefDetailCmd[T any](f *cmdutil.Factory, r Resource[T], spec RefDetailSpec[T]) *cobra.Command {
	c := cmdutil.Verb(f, &cobra.Command{
		Use: spec.Use, Short: spec.Short, Long: spec.Long, Example: spec.Example,
	}, func(s *cmdutil.Session, args []string) error {
		obj, err := spec.Call(s.Client, s.Ctx, args[0])
		if err != nil {
			return err
		}
		if obj == nil && spec.Gone != "" {
			AlreadyDeleted(s, spec.Gone+" "+args[0])
			return nil
		}
		return s.PrintDetail(r.Detail(obj))
	})
	if spec.Check != nil {
		c.PreRunE = func(_ *cobra.Command, args []string) error { return spec.Check(args[0]) }
	}
	return Args(c, spec.Arg, spec.Complete)
}

// AlreadyDeleted says on stderr (unless --quiet) that a delete found
// nothing to do: the server's 200 null.
func AlreadyDeleted(s *cmdutil.Session, what string) {
	s.Note("already_deleted", "%s was already deleted", what)
}

// RefListSpec is a list of things that belong to one object: a network's
// interfaces, an instance's snapshots, a namespace's claims.
type RefListSpec[T any] struct {
	Use, Arg, Short, Long, Example string
	Complete                       cobra.CompletionFunc
	Fetch                          func(c *client.Client, ctx context.Context, ref string) ([]T, error)
}

// NewRefListCmd builds "<noun> <use> REF", printing r's list.
func NewRefListCmd[T any](f *cmdutil.Factory, r Resource[T], spec RefListSpec[T]) *cobra.Command {
	c := cmdutil.Verb(f, &cobra.Command{
		Use: spec.Use, Short: spec.Short, Long: spec.Long, Example: spec.Example,
	}, func(s *cmdutil.Session, args []string) error {
		items, err := spec.Fetch(s.Client, s.Ctx, args[0])
		if err != nil {
			return err
		}
		return s.PrintList(r.List(items))
	})
	return Args(c, spec.Arg, spec.Complete)
}

// Confirm asks a person at a terminal to type yes before something that
// cannot be undone; anywhere else --yes must have said so already. The
// question goes to stderr, so stdout stays data.
func Confirm(s *cmdutil.Session, yes bool, question string) error {
	if yes {
		return nil
	}
	ios := s.F.IOStreams
	if !ios.IsStdinTTY() || !ios.IsStderrTTY() {
		return &cmdutil.UsageError{Msg: question + ": not on a terminal, so pass --yes to confirm", Command: s.F.Command.CommandPath()}
	}
	ios.Notifier().Prompt(question + "? Type yes to go on:")
	line, err := bufio.NewReader(ios.In).ReadString('\n')
	if err != nil && err != io.EOF {
		return err
	}
	if strings.TrimSpace(line) != "yes" {
		return &cmdutil.UsageError{Msg: "not confirmed; nothing was deleted"}
	}
	return nil
}

// DeleteAllSpec is a namespace-wide delete: what it deletes (for the
// question and the help) and the call.
type DeleteAllSpec struct {
	// Use is the verb, "delete-all" unless set; Short its summary.
	Use, Short            string
	Plural, Long, Example string
	// NamespaceArg takes the namespace as the positional NAMESPACE
	// (namespace clean) rather than --namespace, and offers no
	// --all-namespaces.
	NamespaceArg bool
	// Delete deletes in the scope ResolveScope judged: the only way a
	// command reaches a client call that deletes many objects (the source
	// scan in cmd/root keeps it so).
	Delete func(s *cmdutil.Session, sc Scope) (output.Detail, error)
}

// NewDeleteAllCmd builds "<noun> delete-all": every object of one
// namespace, after a confirmation that names what the server will delete.
// The scope is judged by ResolveScope before anything is sent: the system
// key must name a namespace (--namespace), and every namespace is asked
// for with --all-namespaces, never by leaving the namespace out.
func NewDeleteAllCmd(f *cmdutil.Factory, spec DeleteAllSpec) *cobra.Command {
	var (
		yes       bool
		namespace string
		all       bool
	)
	use, short := spec.Use, spec.Short
	if use == "" {
		use = "delete-all"
	}
	if short == "" {
		short = "Delete every " + strings.TrimSuffix(spec.Plural, "s") + " of a namespace"
	}
	c := cmdutil.Verb(f, &cobra.Command{
		Use: use, Short: short,
		Long: spec.Long + `

It asks for confirmation on a terminal; anywhere else --yes must be given.`,
		Example: spec.Example,
	}, func(s *cmdutil.Session, args []string) error {
		req := ScopeRequest{Namespace: namespace, AllNamespaces: all, AllowAll: true, Named: "--namespace"}
		if spec.NamespaceArg {
			req = ScopeRequest{Namespace: args[0], Named: "NAMESPACE"}
		}
		sc, err := ResolveScope(s, req)
		if err != nil {
			return err
		}
		if err := ConfirmScope(s, yes, spec.Plural, sc); err != nil {
			return err
		}
		d, err := spec.Delete(s, sc)
		if d.Raw == nil && d.Fields == nil {
			return err // nothing to print
		}
		if perr := s.PrintDetail(d); perr != nil && err == nil {
			err = perr
		}
		return err
	})
	if spec.NamespaceArg {
		Args(c, "NAMESPACE", complete.NamespaceNames(f))
	}
	c.Flags().BoolVarP(&yes, "yes", "y", false, "do not ask for confirmation")
	c.Flags().BoolVar(&yes, "confirm", false, "the same as --yes (sf-client's spelling)")
	if !spec.NamespaceArg {
		c.Long += `

The scope is never left to the server: with the system key, --namespace
must be given (the server reads "system" as every namespace, so shakectl
does not fill it in), and deleting in every namespace takes
--all-namespaces; --namespace system alone is refused. Any other key
deletes in its own namespace unless --namespace says otherwise (the server
refuses another). What is refused exits 2 before anything is sent.`
		c.Flags().StringVar(&namespace, "namespace", "", "the namespace whose "+spec.Plural+" to delete (default: your key's own; the system key must name one)")
		c.Flags().BoolVar(&all, "all-namespaces", false, "with the system key: delete the "+spec.Plural+" of every namespace")
		cmdutil.Must(c.RegisterFlagCompletionFunc("namespace", complete.NamespaceNames(f)))
	}
	if c.Annotations == nil {
		c.Annotations = map[string]string{}
	}
	c.Annotations[DestructiveAnnotation] = "namespace"
	if spec.NamespaceArg {
		c.Annotations[DestructiveAnnotation] = "NAMESPACE"
	}
	return c
}

// MetadataSpec is the metadata of one kind of object: its argument, the
// reference its examples use, and the calls. Get may be nil where the
// server has no route to read the metadata alone (a blob's is in blob
// show -o json).
type MetadataSpec struct {
	Noun, Arg string
	// Ref is the object the examples name ("web1").
	Ref      string
	Complete cobra.CompletionFunc
	// StringValues sends every VALUE as a string, as sf-client does for
	// artifacts and blobs; otherwise "tags" takes a JSON list and
	// "affinity" a JSON object, as create's -m does.
	StringValues bool
	Get          func(c *client.Client, ctx context.Context, ref string) (map[string]any, error)
	Set          func(c *client.Client, ctx context.Context, ref, key string, value any) error
	Delete       func(c *client.Client, ctx context.Context, ref, key string) error
}

// NewMetadataCmds builds get-metadata, set-metadata and delete-metadata
// for one kind of object, as sf-client has them (client-python 6c25293c
// commandline/*.py): the one metadata builder of every noun.
func NewMetadataCmds(f *cmdutil.Factory, spec MetadataSpec) []*cobra.Command {
	aNoun := withArticle(spec.Noun)
	var cmds []*cobra.Command
	if spec.Get != nil {
		get := cmdutil.Verb(f, &cobra.Command{
			Use: "get-metadata", Short: "Show " + aNoun + "'s metadata",
			Long: `Show the metadata of ` + aNoun + `, one KEY VALUE line per item (values as
JSON); -o json prints the server's object.`,
			Example: "  shakectl " + spec.Noun + " get-metadata " + spec.Ref,
		}, func(s *cmdutil.Session, args []string) error {
			md, err := spec.Get(s.Client, s.Ctx, args[0])
			if err != nil {
				return err
			}
			return s.PrintDetail(MetadataDetail(md))
		})
		cmds = append(cmds, Args(get, spec.Arg, spec.Complete))
	}
	long := `Set the metadata item KEY of ` + aNoun + ` to VALUE. As with create's -m,
"tags" takes a JSON list of strings and "affinity" a JSON object; any other
value is sent as a string. The server refuses an empty value.`
	example := "  shakectl " + spec.Noun + " set-metadata " + spec.Ref + " owner team-a\n" +
		"  shakectl " + spec.Noun + " set-metadata " + spec.Ref + ` tags '["web","prod"]'`
	if spec.StringValues {
		long = `Set the metadata item KEY of ` + aNoun + ` to VALUE, sent as a string.
The server refuses an empty value. Prints nothing.`
		example = "  shakectl " + spec.Noun + " set-metadata " + spec.Ref + " owner team-a"
	}
	set := cmdutil.Verb(f, &cobra.Command{
		Use: "set-metadata", Short: "Set one metadata item of " + aNoun,
		Long: long, Example: example,
	}, func(s *cmdutil.Session, args []string) error {
		if spec.StringValues {
			return spec.Set(s.Client, s.Ctx, args[0], args[1], args[2])
		}
		md, err := client.ParseMetadata([]string{args[1] + "=" + args[2]})
		if err != nil {
			return cmdutil.UsageErrorf("%s", err)
		}
		return spec.Set(s.Client, s.Ctx, args[0], args[1], md[args[1]])
	})
	del := cmdutil.Verb(f, &cobra.Command{
		Use: "delete-metadata", Short: "Delete one metadata item of " + aNoun,
		Example: "  shakectl " + spec.Noun + " delete-metadata " + spec.Ref + " owner",
	}, func(s *cmdutil.Session, args []string) error {
		return spec.Delete(s.Client, s.Ctx, args[0], args[1])
	})
	return append(cmds,
		Args(set, spec.Arg+" KEY VALUE", spec.Complete),
		Args(del, spec.Arg+" KEY", spec.Complete))
}

// withArticle puts "a" or "an" before a noun as it is said: the nouns
// here (artifact, blob, instance, interface, namespace, network) are
// spelled as they sound, so the first letter decides.
func withArticle(noun string) string {
	if noun != "" && strings.ContainsRune("aeiou", rune(noun[0])) {
		return "an " + noun
	}
	return "a " + noun
}

// MetadataDetail shows metadata as sorted KEY VALUE lines, values as
// compact JSON, strings bare.
func MetadataDetail(md map[string]any) output.Detail {
	d := output.Detail{Raw: cmdutil.RawOf(nil, md)}
	for _, k := range slices.Sorted(maps.Keys(md)) {
		v := md[k]
		text, ok := v.(string)
		if !ok {
			b, _ := json.Marshal(v)
			text = string(b)
		}
		d.Fields = append(d.Fields, output.Field{Name: k, Value: text})
	}
	return d
}

// WithRawField adds key: value to a detail's raw object (the server's
// object, kept as sent otherwise), for a show that fetched more.
func WithRawField(raw json.RawMessage, key string, value any) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		m = map[string]json.RawMessage{}
	}
	m[key] = cmdutil.RawOf(nil, value)
	return cmdutil.RawOf(nil, m)
}

// PrintsText marks a verb whose table and simple output is text it
// relays (a console log, ping's lines), not columns: -o columns= is
// refused there rather than ignored.
func PrintsText(c *cobra.Command) *cobra.Command {
	if c.Annotations == nil {
		c.Annotations = map[string]string{}
	}
	formats := make([]string, len(output.Formats))
	for i, f := range output.Formats {
		formats[i] = string(f)
	}
	c.Annotations[cmdutil.OutputsAnnotation] = strings.Join(formats, ",")
	return c
}
