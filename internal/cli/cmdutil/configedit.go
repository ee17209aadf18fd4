package cmdutil

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"

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
	var doc ConfigDoc
	if err := root.Content[0].Decode(&doc); err != nil {
		return UsageErrorf("config file %s: contexts: %s", path, firstLine(err.Error()))
	}
	if err := edit(&doc); err != nil {
		return err
	}
	syncDoc(root.Content[0], doc)
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

// syncDoc makes the mapping m say what doc says about contexts, touching
// nothing else: a changed value keeps its comments and place, a removed key
// goes with its comments, a new one is added at the end.
func syncDoc(m *yaml.Node, doc ConfigDoc) {
	if doc.CurrentContext == "" {
		deleteKey(m, "current-context")
	} else {
		setScalar(valueNode(m, "current-context"), doc.CurrentContext)
	}
	if len(doc.Contexts) == 0 {
		deleteKey(m, "contexts")
		return
	}
	cs := valueNode(m, "contexts")
	if cs.Kind != yaml.MappingNode {
		*cs = yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", LineComment: cs.LineComment}
	}
	for _, name := range keysOf(cs) {
		if _, keep := doc.Contexts[name]; !keep {
			deleteKey(cs, name)
		}
	}
	for _, name := range docKeys(doc.Contexts) {
		c := valueNode(cs, name)
		if c.Kind != yaml.MappingNode {
			*c = yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", LineComment: c.LineComment}
		}
		want := doc.Contexts[name]
		for _, k := range keysOf(c) {
			if _, keep := want[k]; !keep {
				deleteKey(c, k)
			}
		}
		// The context keys in their usual order, then any others.
		keys := docKeys(want)
		slices.SortStableFunc(keys, func(a, b string) int { return rank(a) - rank(b) })
		for _, k := range keys {
			setScalar(valueNode(c, k), want[k])
		}
	}
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

func deleteKey(m *yaml.Node, key string) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content = slices.Delete(m.Content, i, i+2)
			return
		}
	}
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
