// Package configedit rewrites shakectl's config file as the context
// commands change it, keeping the user's comments, key order and every
// other key: the one way the file is written, so parallel commands never
// lose each other's contexts.
package configedit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shakenfist/shakectl/internal/filelock"
	"github.com/shakenfist/shakectl/internal/outfile"
	"github.com/shakenfist/shakectl/internal/userfile"
)

// UpdateDoc is the one way a command rewrites the config file: it holds the
// file's lock (kubectl's practice, so parallel "context create" runs all
// land), reads the file as a YAML node tree, lets edit change the contexts,
// writes back only what changed into that tree, so comments, key order and
// every other key stay as the user wrote them, and replaces the file
// atomically, through a symbolic link if it is one (internal/outfile). edit's
// error writes nothing.
func UpdateDoc(ctx context.Context, path string, edit func(*Doc) error) error {
	if path == outfile.Stdout {
		// "-" is stdout wherever shakectl writes a file; a config file cannot
		// be: it is read back, and it holds keys. Refused before the lock
		// file ("-.lock") is made.
		return errorf("the config file cannot be standard output (-): it is read back and holds keys; name a file with --config or SHAKECTL_CONFIG")
	}
	if err := outfile.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	// The lock belongs to the file written, which a link points at, so
	// two paths to one file share one lock.
	target := path
	if t, err := filepath.EvalSymlinks(path); err == nil {
		target = t
	}
	lock, err := filelock.Acquire(ctx, target)
	if err != nil {
		return err
	}
	defer lock.Unlock()

	raw, err := userfile.Read(ctx, nil, path, FileBound)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		// Ctrl-C during the read is the signal's error, and nothing is
		// written (the edit never runs).
		return err
	}
	text, err := editDoc(path, raw, edit)
	if err != nil {
		return err
	}
	out, err := outfile.Check("config file", path, 0o600)
	if err != nil {
		return err
	}
	// Mode 600 whatever the file's was: it may hold keys.
	return out.Private().Write(ctx, nil, nil, func(w io.Writer) error {
		_, err := w.Write(text)
		return err
	})
}

// editDoc is UpdateDoc's work on the file's bytes (raw; nil for a file
// that does not exist): edit changes the contexts, and only the difference
// is written back into the file's node tree, which is returned encoded.
func editDoc(path string, raw []byte, edit func(*Doc) error) ([]byte, error) {
	root, err := parseDocNode(path, raw)
	if err != nil {
		return nil, err
	}
	// Decoded twice: before is the file as it was, doc is what edit
	// changes.
	var before, doc Doc
	if err := root.Content[0].Decode(&before); err != nil {
		return nil, errorf("config file %s: contexts: %s", path, firstLine(err.Error()))
	}
	if err := root.Content[0].Decode(&doc); err != nil {
		return nil, errorf("config file %s: contexts: %s", path, firstLine(err.Error()))
	}
	if err := edit(&doc); err != nil {
		return nil, err
	}
	syncDoc(root.Content[0], before, doc)
	keepAliasTargets(root)
	keepFlowNulls(root, false)
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// parseDocNode reads raw as a document whose root is a mapping (an empty
// one for a file that does not exist or holds nothing).
func parseDocNode(path string, raw []byte) (*yaml.Node, error) {
	var root yaml.Node
	if err := OneDocument(path, raw); err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(raw)) > 0 {
		if err := yaml.Unmarshal(raw, &root); err != nil {
			return nil, errorf("config file %s is not valid YAML: %s", path, firstLine(err.Error()))
		}
	}
	if root.Kind == 0 {
		root = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}}
	}
	if root.Kind != yaml.DocumentNode || len(root.Content) != 1 {
		return nil, errorf("config file %s must hold one YAML document", path)
	}
	if m := root.Content[0]; m.Kind != yaml.MappingNode {
		if m.Kind == yaml.ScalarNode && m.Tag == "!!null" {
			root.Content[0] = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", HeadComment: m.HeadComment, FootComment: m.FootComment}
		} else {
			return nil, errorf("config file %s must be a map of keys", path)
		}
	}
	return &root, nil
}

// OneDocument refuses raw when it holds a second YAML document (after a "---"
// line), an empty one included: shakectl reads one document, so a second
// would be ignored when read and dropped when rewritten. Every reader of the
// config file calls it. It leaves a first document that does not parse to the
// caller's own parse.
func OneDocument(path string, raw []byte) error {
	d := yaml.NewDecoder(bytes.NewReader(raw))
	var first, second yaml.Node
	if err := d.Decode(&first); err != nil {
		return nil
	}
	switch err := d.Decode(&second); {
	case errors.Is(err, io.EOF):
		return nil
	case err != nil:
		return errorf("config file %s is not valid YAML: %s", path, firstLine(err.Error()))
	}
	return errorf("config file %s holds a second YAML document (from line %d); shakectl reads only one: remove the \"---\" line and what follows it, or merge it into the first", path, second.Line)
}

// syncDoc makes the mapping m say what after says about contexts where it
// differs from before (the file as read), touching nothing else: a key
// whose value did not change is not rewritten (an empty "key:" stays as
// written), a changed value keeps its comments and place, a new key is
// added at the end, and a removed entry goes as removeEntryAt says.
//
// A command removes only what it names: "context delete NAME" removes
// that context's entry. The setting that pointed at it (current-context)
// and the section that held it (contexts) are emptied, not removed, as
// kubectl leaves current-context: "" and yq's del leaves contexts: {}, so
// the comments a user wrote about them stay with them.
func syncDoc(m *yaml.Node, before, after Doc) {
	if after.CurrentContext != before.CurrentContext {
		setValue(m, "current-context", after.CurrentContext)
	}
	if maps.EqualFunc(before.Contexts, after.Contexts, maps.Equal) {
		return
	}
	ck, cs := mappingValue(m, "contexts")
	defer emptyMapLineComment(ck, cs)
	if len(cs.Content) == 0 {
		// "contexts: {}", as a delete of the last one leaves it, grows
		// back in block style, not as {new: {api-url: ...}}.
		cs.Style &^= yaml.FlowStyle
		blockMapLineComment(ck, cs)
	}
	removeAbsent(cs, func(name string) bool { _, keep := after.Contexts[name]; return keep })
	for _, name := range docKeys(after.Contexts) {
		old, had := before.Contexts[name]
		want := after.Contexts[name]
		if had && maps.Equal(old, want) {
			continue
		}
		nameKey, c := mappingValue(cs, name)
		blockMapLineComment(nameKey, c)
		removeAbsent(c, func(k string) bool { _, keep := want[k]; return keep })
		// The context keys in their usual order, then any others.
		keys := docKeys(want)
		slices.SortStableFunc(keys, func(a, b string) int { return rank(a) - rank(b) })
		for _, k := range keys {
			if v, ok := old[k]; had && ok && v == want[k] {
				continue
			}
			setValue(c, k, want[k])
		}
		emptyMapLineComment(nameKey, c)
	}
}

// keepAliasTargets keeps the file valid YAML when an entry removed held an
// anchor that an alias elsewhere still names ("lab-2: *lab" after "context
// delete lab"): written as it was, the next command would refuse the file
// ("unknown anchor"). The first such alias, in document order, becomes a
// copy of what it named, and later ones name that copy (which keeps the
// anchor only then); so every remaining context keeps the values it had.
func keepAliasTargets(root *yaml.Node) {
	present := map[*yaml.Node]bool{}
	var mark func(*yaml.Node)
	mark = func(n *yaml.Node) {
		present[n] = true
		for _, c := range n.Content {
			mark(c)
		}
	}
	mark(root)
	// refs counts the aliases left to each removed node.
	refs := map[*yaml.Node]int{}
	for n := range present {
		if n.Kind == yaml.AliasNode && n.Alias != nil && !present[n.Alias] {
			refs[n.Alias]++
		}
	}
	if len(refs) == 0 {
		return
	}
	moved := map[*yaml.Node]*yaml.Node{} // a removed anchored node: its copy
	var fix func(*yaml.Node)
	fix = func(n *yaml.Node) {
		for i, c := range n.Content {
			if c.Kind == yaml.AliasNode && c.Alias != nil && !present[c.Alias] {
				if to, ok := moved[c.Alias]; ok {
					c.Alias, c.Value = to, to.Anchor
				} else {
					orig, head, line, foot := c.Alias, c.HeadComment, c.LineComment, c.FootComment
					refs[orig]-- // this alias is the copy
					*c = *copyTree(orig, moved, refs)
					if c.Anchor != "" {
						moved[orig] = c // c itself, not the copy it was set from
					}
					c.HeadComment, c.LineComment, c.FootComment = head, line, foot
					if n.Kind == yaml.MappingNode && i%2 == 1 {
						copiedValueComment(n.Content[i-1], c)
					}
				}
			}
			fix(c)
		}
	}
	fix(root)
}

// keepFlowNulls writes an empty null inside a flow collection ("{lab}",
// "{lab: }") as "~": yaml.v3 (go.yaml.in/yaml/v3 v3.0.6, whose emitter
// allows no empty plain scalar in flow) prints it as an empty quoted
// string, and a context that was empty became a string every later
// command refused ("cannot unmarshal !!str into map"). A block's "lab:"
// prints as it was.
func keepFlowNulls(n *yaml.Node, inFlow bool) {
	inFlow = inFlow || n.Style&yaml.FlowStyle != 0
	if inFlow && n.Kind == yaml.ScalarNode && n.Value == "" && n.ShortTag() == "!!null" && n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) == 0 {
		n.Value = "~"
	}
	for _, c := range n.Content {
		keepFlowNulls(c, inFlow)
	}
}

// copyTree copies n's tree. An anchored node keeps its anchor only when
// aliases are left to it, noting its copy in moved; aliases inside stay
// aliases.
func copyTree(n *yaml.Node, moved map[*yaml.Node]*yaml.Node, refs map[*yaml.Node]int) *yaml.Node {
	c := *n
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, sub := range n.Content {
		c.Content[i] = copyTree(sub, moved, refs)
	}
	if n.Anchor != "" {
		if refs[n] > 0 {
			moved[n] = &c
		} else {
			c.Anchor = ""
		}
	}
	return &c
}

// copiedValueComment places the line comment of an alias replaced by a
// copy ("lab-2: *lab # note") where yaml.v3 prints a valid file: on the
// key's line above a block, but above the key when the block keeps an
// anchor (yaml.v3 writes "key: # note", then "&lab" on a line of its own).
func copiedValueComment(key, v *yaml.Node) {
	if v.LineComment == "" || v.Style&yaml.FlowStyle != 0 || len(v.Content) == 0 {
		return
	}
	if v.Anchor != "" {
		key.HeadComment = joinComments(key.HeadComment, v.LineComment)
		v.LineComment = ""
		return
	}
	blockLineComment(key, v)
}

// blockMapLineComment and emptyMapLineComment keep a mapping's line
// comment ("contexts: # mine") where yaml.v3 prints it well: on the key
// while the mapping has entries (on the mapping, it lands after the last
// entry's value), on the mapping once it is empty ("contexts: {} # mine";
// on the key, "{}" goes to a line of its own, which is not YAML).
func blockMapLineComment(key, m *yaml.Node) {
	if len(m.Content) == 0 {
		blockLineComment(key, m)
	}
}

// blockLineComment moves the line comment of a value about to be printed
// as a block (a mapping or sequence with entries) onto its key.
func blockLineComment(key, v *yaml.Node) {
	if v.LineComment != "" && v.Style&yaml.FlowStyle == 0 {
		key.LineComment = joinLine(key.LineComment, v.LineComment)
		v.LineComment = ""
	}
}

func emptyMapLineComment(key, m *yaml.Node) {
	if key.LineComment != "" && len(m.Content) == 0 {
		m.LineComment = joinLine(key.LineComment, m.LineComment)
		key.LineComment = ""
	}
}

func joinLine(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + " " + b
}

// removeEntryAt deletes the entry whose key is m.Content[i], and its value,
// from the mapping m, with the entry's own comments and no others (a
// hand-written comment above a removed context was once lost with it).
//
// An entry's own comments are the ones a reader sees as part of it: its
// line comments, every comment inside its value, and the paragraph of its
// head comment directly above it, with no blank line between ("# the lab:
// no key needed" over "lab:"). They go with it, as yq's del takes them.
//
// Two kinds of comment yaml.v3 hangs on an entry are not about it, and
// stay, moved onto the nearest entry left in m:
//   - the paragraphs of its head comment above a blank line: the first
//     entry of a block carries the block's title ("# work clouds", then a
//     blank line, then the entry's own note);
//   - its foot comment: the comments that follow the last entry of a block
//     at its own indentation, which end the section or open the next one.
//
// They become the head of the entry that now follows (in order, before its
// own head), else the foot of the one before, else the foot of m itself
// (a mapping left empty prints as "{}" followed by them).
func removeEntryAt(m *yaml.Node, i int) {
	k := m.Content[i]
	var kept []string
	if above, _ := splitHead(k.HeadComment); above != "" {
		kept = append(kept, above)
	}
	if k.FootComment != "" {
		kept = append(kept, k.FootComment)
	}
	m.Content = slices.Delete(m.Content, i, i+2)
	if len(kept) == 0 {
		return
	}
	text := strings.Join(kept, "\n\n")
	switch {
	case i < len(m.Content):
		// Over an entry with no note of its own, the blank line that set
		// the kept comments apart is written out ("\n\n"), so the next
		// write still tells them from that entry's own note.
		next := m.Content[i]
		next.HeadComment = joinComments(text, strings.TrimRight(next.HeadComment, "\n"))
		if next.HeadComment == text {
			next.HeadComment += "\n\n"
		}
	case i > 0:
		prev := m.Content[i-2]
		prev.FootComment = joinComments(prev.FootComment, text)
	default:
		m.FootComment = joinComments(m.FootComment, text)
	}
}

// splitHead splits a head comment at its last blank line: above it, the
// paragraphs about the block; below, the entry's own note. yaml.v3 reads
// "# title", a blank line, then the entry as "# title\n" (no own note).
func splitHead(head string) (above, own string) {
	if strings.HasSuffix(head, "\n") {
		return strings.TrimRight(head, "\n"), ""
	}
	if cut := strings.LastIndex(head, "\n\n"); cut >= 0 {
		return head[:cut], head[cut+2:]
	}
	return "", head
}

// joinComments puts two comment blocks one after the other, a blank line
// between them as between the paragraphs they were.
func joinComments(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n\n" + b
}

func rank(k string) int {
	if i := slices.Index(ContextKeys, k); i >= 0 {
		return i
	}
	return len(ContextKeys)
}

// valueIndex is the index in m.Content of key's value in mapping m, the
// key added (with an empty value) at the end when it is missing.
func valueIndex(m *yaml.Node, key string) int {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return i + 1
		}
	}
	k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}
	v := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}
	m.Content = append(m.Content, k, v)
	return len(m.Content) - 1
}

// setValue makes key's value in mapping m the string s, quoted where YAML
// would read it as something else ("yes", "1e3").
//
// A changed value (here and in mappingValue) is a new node put in the old
// one's place, never the old node rewritten: an alias elsewhere to the old
// value's anchor ("current-context: &cur lab", "previous: *cur") then still
// names what it named, which keepAliasTargets copies in; a rewritten node
// lost its anchor and left the file "unknown anchor" to the next command.
// The new node takes the old one's head, line and foot comments (yaml.v3
// hangs a comment written between a key and its value, "contexts:", "  #
// none yet", "  ~", on the value node).
func setValue(m *yaml.Node, key, s string) {
	i := valueIndex(m, key)
	old := m.Content[i]
	if old.Kind == yaml.ScalarNode && old.Tag == "!!str" && old.Value == s {
		return // unchanged: keep its style too
	}
	v := &yaml.Node{}
	_ = v.Encode(s)
	m.Content[i] = withComments(v, old)
}

// mappingValue returns key's node in mapping m and its value, which is made
// an empty block mapping when it is not a mapping (an empty "key:", a new
// key).
func mappingValue(m *yaml.Node, key string) (*yaml.Node, *yaml.Node) {
	i := valueIndex(m, key)
	switch v := m.Content[i]; {
	case v.Kind == yaml.AliasNode && v.Alias != nil && v.Alias.Kind == yaml.MappingNode:
		// "contexts: *clouds": the entries it names become its own, a
		// copy (the anchored original stays as it is, for its other
		// uses); an empty mapping in its place lost them all.
		m.Content[i] = withComments(copyTree(v.Alias, map[*yaml.Node]*yaml.Node{}, nil), v)
	case v.Kind != yaml.MappingNode:
		m.Content[i] = withComments(&yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}, v)
	}
	return m.Content[i-1], m.Content[i]
}

// removeAbsent removes from mapping m, as removeEntryAt does, each entry
// keep refuses. An entry m takes from a merge key ("<<: *base") is no
// entry of its own: removing the merge key lost every entry it brought
// (a create dropped them), and leaving it kept a deleted one. So a merge
// key stays unless an entry it brings is to go; then m's merges are
// written out as its own entries (expandMerges).
func removeAbsent(m *yaml.Node, keep func(string) bool) {
	for _, pairs := range mergedEntries(m) {
		if slices.ContainsFunc(pairs, func(p []*yaml.Node) bool { return !keep(p[0].Value) }) {
			expandMerges(m, keep)
			break
		}
	}
	for i := 0; i+1 < len(m.Content); {
		if k := m.Content[i]; !isMergeKey(k) && !keep(k.Value) {
			removeEntryAt(m, i)
		} else {
			i += 2
		}
	}
}

// mergedEntries returns, for each merge key of m (by its index), copies of
// the entries it brings, as yaml.v3 decodes them: m's own keys win, then
// the first mapping merged.
func mergedEntries(m *yaml.Node) map[int][][]*yaml.Node {
	seen := map[string]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if k := m.Content[i]; !isMergeKey(k) {
			seen[k.Value] = true
		}
	}
	out := map[int][][]*yaml.Node{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if !isMergeKey(m.Content[i]) {
			continue
		}
		v := m.Content[i+1]
		from := []*yaml.Node{v}
		if v.Kind == yaml.SequenceNode {
			from = v.Content
		}
		out[i] = [][]*yaml.Node{}
		for _, src := range from {
			for src.Kind == yaml.AliasNode && src.Alias != nil {
				src = src.Alias
			}
			if src.Kind != yaml.MappingNode {
				continue
			}
			c := copyTree(src, map[*yaml.Node]*yaml.Node{}, nil)
			expandMerges(c, func(string) bool { return true })
			for j := 0; j+1 < len(c.Content); j += 2 {
				if name := c.Content[j].Value; !seen[name] {
					seen[name] = true
					out[i] = append(out[i], c.Content[j:j+2])
				}
			}
		}
	}
	return out
}

// expandMerges replaces each merge key of m by the entries it brings that
// keep accepts, the merge key's comments on the first of them; a merge
// key that brings none is removed as removeEntryAt removes an entry.
func expandMerges(m *yaml.Node, keep func(string) bool) {
	merged := mergedEntries(m)
	var exp, empty []*yaml.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		pairs, isMerge := merged[i]
		if !isMerge {
			exp = append(exp, k, v)
			continue
		}
		first := len(exp)
		for _, p := range pairs {
			if keep(p[0].Value) {
				exp = append(exp, p...)
			}
		}
		if first == len(exp) {
			// Removed below, so that its comments go as an entry's do.
			exp = append(exp, k, v)
			empty = append(empty, k)
			continue
		}
		// yaml.v3 prints a line comment on the key of a block, on the
		// value of anything else.
		e, ev := exp[first], exp[first+1]
		e.HeadComment = joinComments(joinComments(k.HeadComment, v.HeadComment), e.HeadComment)
		ev.LineComment = joinLine(joinLine(k.LineComment, v.LineComment), ev.LineComment)
		if len(ev.Content) > 0 {
			blockLineComment(e, ev)
		}
		e.FootComment = joinComments(e.FootComment, joinComments(k.FootComment, v.FootComment))
	}
	m.Content = exp
	for _, k := range empty {
		removeEntryAt(m, slices.Index(m.Content, k))
	}
}

// isMergeKey says whether k is YAML's merge key, "<<" unquoted (a quoted
// "<<" is a plain key).
func isMergeKey(k *yaml.Node) bool {
	return k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge"
}

// withComments gives v the comments of old, the node it replaces.
func withComments(v, old *yaml.Node) *yaml.Node {
	v.HeadComment, v.LineComment, v.FootComment = old.HeadComment, old.LineComment, old.FootComment
	return v
}

func docKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// FileBound bounds a configuration file, shakectl's or sf-client's: a few
// keys and contexts; a file far larger is not one.
var FileBound = userfile.Bound{Flag: "config file", Max: 1 << 20}

// Doc is the config file as contexts see it: the named contexts and the
// current one, next to the top-level keys (kept as they are).
type Doc struct {
	CurrentContext string                       `yaml:"current-context,omitempty"`
	Contexts       map[string]map[string]string `yaml:"contexts,omitempty"`
}

// ContextKeys are the settings a context holds: which cloud, as whom.
var ContextKeys = []string{"api-url", "namespace", "key"}

// Error is a config file that cannot be edited as it is: the user must
// change it (the commands make it a usage error).
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

func errorf(format string, a ...any) error { return &Error{Msg: fmt.Sprintf(format, a...)} }

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
