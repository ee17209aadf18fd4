package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/shakenfist/shakectl/cmd/builders"
	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/internal/userfile"
	"github.com/shakenfist/shakectl/output"
)

// Options are the arguments and flags of `shakectl api`.
type Options struct {
	Method string
	Path   string
	// Fields are the -F (typed) and -f (string) parameters in command-line
	// order, which decides which list element a "disk[][base]" joins.
	Fields []FieldArg
	Input  string // --input FILE or -

	In io.Reader
	// Context ends a read of standard input.
	Context context.Context
}

// NewCmd builds `shakectl api`. runF, when not nil, replaces the run.
func NewCmd(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{In: f.IOStreams.In, Context: f.Context}
	var req request
	c := &cobra.Command{
		Use:   "api",
		Short: "Make an authenticated Shakenfist API request",
		Long: `Send any request to the Shakenfist API and print the answer's body: indented
JSON on a terminal, the body as sent when piped, YAML with -o yaml.

PATH is relative to the API URL (e.g. /instances). The request uses the same
authentication, --retry-transient-capacity, --timeout, --debug and exit
codes as every other command: a 404 exits 5, a transient 507 exits 75. An
error answer's JSON body is printed too, and the error goes to stderr.

Parameters go in a JSON object body, also on GET (the server expects that):

  -F KEY=VALUE   a typed value: true, false, null and numbers become JSON
                 literals, @FILE is the contents of FILE (@- reads stdin),
                 anything else is a string
  -f KEY=VALUE   a string, always

KEY may name nested objects and lists: a[b]=1 gives {"a":{"b":1}}, and
tags[]=x appends to the list tags. --input FILE (or --body FILE; - or @-
for stdin) sends a file's JSON as the body instead. Standard input can feed one input only.`,
		Example: `  shakectl api GET /instances
  shakectl api GET /instances -F all=true
  shakectl api POST /instances -f name=web1 -F cpus=1 -F memory=1024 -F 'disk[][size]=8'
  shakectl api POST /instances --input create.json --retry-transient-capacity
  shakectl api GET /nodes | jq -r '.[] | select(.is_hypervisor) | .name'`,
		// The request is made of the arguments and flags before anything
		// is resolved or sent.
		PreRunE: func(_ *cobra.Command, args []string) (err error) {
			o.Method, o.Path = args[0], args[1]
			if runF != nil {
				return nil
			}
			req, err = o.request()
			return err
		},
	}
	if runF != nil {
		cmdutil.Local(c, func(*cobra.Command, []string) error { return runF(o) })
	} else {
		cmdutil.Verb(f, c, func(s *cmdutil.Session, _ []string) error { return run(s, req) })
	}
	fl := c.Flags()
	fl.VarP(&fieldFlag{typed: true, list: &o.Fields}, "field", "F", "add a typed parameter KEY=VALUE to the JSON body (repeat)")
	fl.VarP(&fieldFlag{list: &o.Fields}, "raw-field", "f", "add a string parameter KEY=VALUE to the JSON body (repeat)")
	fl.StringVar(&o.Input, "input", "", "send the JSON in FILE as the body (- or @- for stdin; --body is the same flag)")
	// --body is another name for --input (what curl-minded users type); a
	// normalised alias, so both fill one value and one reader serves them.
	fl.SetNormalizeFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		if name == "body" {
			name = "input"
		}
		return pflag.NormalizedName(name)
	})
	return builders.Args(c, "METHOD PATH", cobra.FixedCompletions([]string{"GET", "POST", "PUT", "PATCH", "DELETE"}, cobra.ShellCompDirectiveNoFileComp))
}

// FieldArg is one -F or -f argument.
type FieldArg struct {
	Typed bool
	KV    string
}

// fieldFlag collects -F and -f into one list, keeping their order.
type fieldFlag struct {
	typed bool
	list  *[]FieldArg
}

func (f *fieldFlag) String() string { return "" }

func (f *fieldFlag) Type() string { return "KEY=VALUE" }

func (f *fieldFlag) Set(v string) error {
	*f.list = append(*f.list, FieldArg{Typed: f.typed, KV: v})
	return nil
}

// Request checks the method and path and builds the body.
func (o *Options) Request() (method, path string, body []byte, err error) {
	method = strings.ToUpper(strings.TrimSpace(o.Method))
	if method == "" || strings.IndexFunc(method, func(r rune) bool { return r < 'A' || r > 'Z' }) >= 0 {
		return "", "", nil, cmdutil.UsageErrorf("METHOD %q is not an HTTP method such as GET, POST or DELETE", o.Method)
	}
	path = strings.TrimSpace(o.Path)
	if strings.Contains(path, "://") {
		return "", "", nil, cmdutil.UsageErrorf("PATH %q must be relative to the API URL, e.g. /instances (set the server with --api-url)", o.Path)
	}
	if strings.ContainsAny(path, " \t\r\n") {
		return "", "", nil, cmdutil.UsageErrorf("PATH %q contains white space", o.Path)
	}
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	// Standard input can be read once: one input may name it.
	stdinUses := 0
	if o.Input == "-" || o.Input == "@-" {
		stdinUses++
	}
	for _, fa := range o.Fields {
		if _, v, ok := strings.Cut(fa.KV, "="); ok && fa.Typed && v == "@-" {
			stdinUses++
		}
	}
	if stdinUses > 1 {
		return "", "", nil, cmdutil.UsageErrorf("standard input can be read only once, but %d inputs name it (@- or -)", stdinUses)
	}
	// --input @FILE and @- read as -F's @FILE does (gh api's --input takes
	// both spellings).
	o.Input = strings.TrimPrefix(o.Input, "@")
	if o.Input != "" {
		if len(o.Fields) > 0 {
			return "", "", nil, cmdutil.UsageErrorf("--input and -F/-f both give the body; use one")
		}
		raw, err := userfile.Read(o.Context, o.In, o.Input, userfile.Body("--input"))
		if err != nil {
			return "", "", nil, cmdutil.ReadFileError(err)
		}
		if !json.Valid(raw) {
			return "", "", nil, cmdutil.UsageErrorf("--input %s is not valid JSON", o.Input)
		}
		return method, path, raw, nil
	}
	if len(o.Fields) == 0 {
		return method, path, nil, nil
	}
	params, err := buildFields(o.Context, o.Fields, o.In)
	if err != nil {
		return "", "", nil, err
	}
	body, err = json.Marshal(params)
	if err != nil {
		return "", "", nil, cmdutil.UsageErrorf("cannot encode the parameters: %s", err)
	}
	return method, path, body, nil
}

// buildFields turns -F (typed) and -f (string) fields into one JSON object.
func buildFields(ctx context.Context, fields []FieldArg, in io.Reader) (map[string]any, error) {
	obj := map[string]any{}
	add := func(flag, kv string, typedValue bool) error {
		key, val, ok := strings.Cut(kv, "=")
		if !ok {
			return cmdutil.UsageErrorf("%s %q: want KEY=VALUE", flag, kv)
		}
		segs, err := parseFieldKey(key)
		if err != nil {
			return cmdutil.UsageErrorf("%s %q: %s", flag, kv, err)
		}
		var v any = val
		if typedValue {
			if v, err = typedFieldValue(ctx, val, in); err != nil {
				return cmdutil.UsageErrorf("%s %q: %s", flag, kv, err)
			}
		}
		if err := setField(obj, segs, v); err != nil {
			return cmdutil.UsageErrorf("%s %q: %s", flag, kv, err)
		}
		return nil
	}
	for _, fa := range fields {
		flag := "-f"
		if fa.Typed {
			flag = "-F"
		}
		if err := add(flag, fa.KV, fa.Typed); err != nil {
			return nil, err
		}
	}
	return obj, nil
}

// parseFieldKey splits "a[b][]" into its segments ["a" "b" ""]; an empty
// segment means "an element of a list".
func parseFieldKey(key string) ([]string, error) {
	name, rest, _ := strings.Cut(key, "[")
	if name == "" || strings.Contains(name, "]") {
		return nil, fmt.Errorf("malformed key %q: want NAME, NAME[SUB] or NAME[]", key)
	}
	segs := []string{name}
	if len(name) < len(key) {
		rest = key[len(name):]
	}
	for rest != "" {
		end := strings.IndexByte(rest, ']')
		if rest[0] != '[' || end < 0 || strings.Contains(rest[1:end], "[") {
			return nil, fmt.Errorf("malformed key %q: want NAME, NAME[SUB] or NAME[]", key)
		}
		segs = append(segs, rest[1:end])
		rest = rest[end+1:]
	}
	for i := 1; i < len(segs)-1; i++ {
		if segs[i] == "" && segs[i+1] == "" {
			return nil, fmt.Errorf("malformed key %q: lists of lists are not supported", key)
		}
	}
	return segs, nil
}

// setField stores v at segs in obj. "list[]" appends v; "list[][k]" sets k
// in the list's last object while that object lacks k, else in a new one, so
// -F 'disk[][size]=8' -F 'disk[][base]=debian' -F 'disk[][size]=20' makes
// two disks.
func setField(obj map[string]any, segs []string, v any) error {
	seg, rest := segs[0], segs[1:]
	switch {
	case len(rest) == 0:
		if _, dup := obj[seg]; dup {
			return fmt.Errorf("%s is given twice", seg)
		}
		obj[seg] = v
		return nil
	case rest[0] == "":
		list, ok := obj[seg].([]any)
		if !ok && obj[seg] != nil {
			return fmt.Errorf("%s is both a list and something else", seg)
		}
		after := rest[1:]
		if len(after) == 0 {
			obj[seg] = append(list, v)
			return nil
		}
		var elem map[string]any
		if n := len(list); n > 0 {
			if m, ok := list[n-1].(map[string]any); ok {
				if _, taken := m[after[0]]; !taken {
					elem = m
				}
			}
		}
		if elem == nil {
			elem = map[string]any{}
			list = append(list, elem)
		}
		obj[seg] = list
		return setField(elem, after, v)
	default:
		m, ok := obj[seg].(map[string]any)
		if !ok {
			if obj[seg] != nil {
				return fmt.Errorf("%s is both an object and something else", seg)
			}
			m = map[string]any{}
			obj[seg] = m
		}
		return setField(m, rest, v)
	}
}

// typedFieldValue reads a -F value the way gh api does.
func typedFieldValue(ctx context.Context, s string, in io.Reader) (any, error) {
	switch s {
	case "true":
		return true, nil
	case "false":
		return false, nil
	case "null":
		return nil, nil
	}
	if strings.HasPrefix(s, "@") {
		raw, err := userfile.Read(ctx, in, s[1:], userfile.Body("-F"))
		if err != nil {
			return nil, err
		}
		return string(raw), nil
	}
	if s != "" && (s[0] == '-' || (s[0] >= '0' && s[0] <= '9')) && json.Valid([]byte(s)) {
		return json.Number(s), nil
	}
	return s, nil
}

// request is what the command sends.
type request struct {
	method, path string
	body         []byte
}

func (o *Options) request() (r request, err error) {
	r.method, r.path, r.body, err = o.Request()
	return r, err
}

func run(s *cmdutil.Session, r request) error {
	f, method, path := s.F, r.method, r.path
	resp, callErr := s.Client.Raw(s.Ctx, method, path, r.body)
	callErr = cmdutil.AsRouteNotFound(callErr, method, path)
	if resp == nil || len(bytes.TrimSpace(resp.Body)) == 0 {
		return callErr
	}
	isJSON := json.Valid(resp.Body)
	switch {
	case callErr != nil && !isJSON:
		// An HTML error page says nothing a script can use; the error line
		// on stderr already quotes it.
		return callErr
	case !isJSON && s.Cfg.Output.Data():
		return fmt.Errorf("%s %s: the server answered %d with a body that is not JSON", method, path, resp.StatusCode)
	}
	if err := output.PrintJSONBody(f.IOStreams, s.Cfg.Output, resp.Body, f.IOStreams.IsStdoutTTY()); err != nil {
		return err
	}
	return callErr
}
