package cmdutil

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shakenfist/shakectl/internal/filelock"
	"github.com/shakenfist/shakectl/internal/outfile"
	"github.com/shakenfist/shakectl/internal/userfile"
)

// UpdateDoc is the one way a command rewrites the config file (issue 28,
// item 2): it holds the file's lock (kubectl's practice, so parallel
// "context create" runs all land), reads the file as a YAML node tree,
// lets edit change the contexts, writes back only what changed into that
// tree, so comments, key order and every other key stay as the user wrote
// them, and replaces the file atomically, through a symbolic link if it is
// one (internal/outfile). edit's error writes nothing.
func UpdateDoc(ctx context.Context, path string, edit func(*ConfigDoc) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
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

	root, err := readDocNode(ctx, path)
	if err != nil {
		return err
	}
	// Decoded twice: before is the file as it was, doc is what edit
	// changes; only the difference is written back into the tree.
	var before, doc ConfigDoc
	if err := root.Content[0].Decode(&before); err != nil {
		return UsageErrorf("config file %s: contexts: %s", path, firstLine(err.Error()))
	}
	if err := root.Content[0].Decode(&doc); err != nil {
		return UsageErrorf("config file %s: contexts: %s", path, firstLine(err.Error()))
	}
	if err := edit(&doc); err != nil {
		return err
	}
	syncDoc(root.Content[0], before, doc)
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	out, err := outfile.Check("config file", path, 0o600)
	if err != nil {
		return err
	}
	// Mode 600 whatever the file's was: it may hold keys.
	return out.Private().Write(ctx, nil, nil, func(w io.Writer) error {
		_, err := w.Write(buf.Bytes())
		return err
	})
}

// readDocNode reads the file as a document whose root is a mapping (an
// empty one for a file that does not exist or holds nothing).
func readDocNode(ctx context.Context, path string) (*yaml.Node, error) {
	raw, err := userfile.Read(ctx, nil, path, configFileBound)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		// Ctrl-C during the read is the signal's error, and nothing is
		// written (the edit never runs).
		return nil, ReadFileError(err)
	}
	var root yaml.Node
	if len(bytes.TrimSpace(raw)) > 0 {
		if err := yaml.Unmarshal(raw, &root); err != nil {
			return nil, UsageErrorf("config file %s is not valid YAML: %s", path, firstLine(err.Error()))
		}
	}
	if root.Kind == 0 {
		root = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}}
	}
	if root.Kind != yaml.DocumentNode || len(root.Content) != 1 {
		return nil, UsageErrorf("config file %s must hold one YAML document", path)
	}
	if m := root.Content[0]; m.Kind != yaml.MappingNode {
		if m.Kind == yaml.ScalarNode && m.Tag == "!!null" {
			root.Content[0] = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", HeadComment: m.HeadComment, FootComment: m.FootComment}
		} else {
			return nil, UsageErrorf("config file %s must be a map of keys", path)
		}
	}
	return &root, nil
}

// syncDoc makes the mapping m say what after says about contexts where it
// differs from before (the file as read), touching nothing else: a key
// whose value did not change is not rewritten (an empty "key:" stays as
// written), a changed value keeps its comments and place, a new key is
// added at the end, and a removed entry goes as removeEntry says.
//
// A command removes only what it names: "context delete NAME" removes
// that context's entry. The setting that pointed at it (current-context)
// and the section that held it (contexts) are emptied, not removed, as
// kubectl leaves current-context: "" and yq's del leaves contexts: {}, so
// the comments a user wrote about them stay with them.
func syncDoc(m *yaml.Node, before, after ConfigDoc) {
	if after.CurrentContext != before.CurrentContext {
		setScalar(valueNode(m, "current-context"), after.CurrentContext)
	}
	if maps.EqualFunc(before.Contexts, after.Contexts, maps.Equal) {
		return
	}
	cs := valueNode(m, "contexts")
	if cs.Kind != yaml.MappingNode {
		*cs = yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", LineComment: cs.LineComment}
	}
	if len(cs.Content) == 0 {
		// "contexts: {}", as a delete of the last one leaves it, grows
		// back in block style, not as {new: {api-url: ...}}.
		cs.Style &^= yaml.FlowStyle
	}
	for _, name := range keysOf(cs) {
		if _, keep := after.Contexts[name]; !keep {
			removeEntry(cs, name)
		}
	}
	for _, name := range docKeys(after.Contexts) {
		old, had := before.Contexts[name]
		want := after.Contexts[name]
		if had && maps.Equal(old, want) {
			continue
		}
		c := valueNode(cs, name)
		if c.Kind != yaml.MappingNode {
			*c = yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", LineComment: c.LineComment}
		}
		for _, k := range keysOf(c) {
			if _, keep := want[k]; !keep {
				removeEntry(c, k)
			}
		}
		// The context keys in their usual order, then any others.
		keys := docKeys(want)
		slices.SortStableFunc(keys, func(a, b string) int { return rank(a) - rank(b) })
		for _, k := range keys {
			if v, ok := old[k]; had && ok && v == want[k] {
				continue
			}
			setScalar(valueNode(c, k), want[k])
		}
	}
}

// removeEntry deletes key and its value from the mapping m, with the
// entry's own comments and no others (issue 28, item 2: a hand-written
// comment above a removed context was lost with it).
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
func removeEntry(m *yaml.Node, key string) {
	i := slices.Index(keysOf(m), key) * 2
	if i < 0 {
		return
	}
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
	if i := slices.Index(contextKeys, k); i >= 0 {
		return i
	}
	return len(contextKeys)
}

// valueNode returns the value node of key in mapping m, adding the key (with
// an empty value) at the end when it is missing.
func valueNode(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}
	v := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}
	m.Content = append(m.Content, k, v)
	return v
}

func keysOf(m *yaml.Node) []string {
	var keys []string
	for i := 0; i+1 < len(m.Content); i += 2 {
		keys = append(keys, m.Content[i].Value)
	}
	return keys
}

// setScalar makes n the string s, quoted where YAML would read it as
// something else ("yes", "1e3"), keeping n's comments.
func setScalar(n *yaml.Node, s string) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!str" && n.Value == s {
		return // unchanged: keep its style too
	}
	var v yaml.Node
	_ = v.Encode(s)
	head, line, foot := n.HeadComment, n.LineComment, n.FootComment
	*n = v
	n.HeadComment, n.LineComment, n.FootComment = head, line, foot
}

func docKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
