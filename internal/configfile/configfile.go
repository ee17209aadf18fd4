// Package configfile reads the files a configuration comes from:
// shakectl's config file (its top-level keys and its contexts) and
// sf-client's ~/.shakenfist and /etc/sf/shakenfist.json. It knows their
// formats, not the settings: the kernel (cmd/cmdutil) says which keys are
// known and layers what is read. internal/configedit writes the file.
//
// A file that cannot be used as it is gives an *Error, whose message names
// the file (the commands make it a usage error, exit 2); a read that
// failed is userfile's error, unchanged.
package configfile

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shakenfist/shakectl/internal/configedit"
	"github.com/shakenfist/shakectl/internal/userfile"
)

// Error is a config file that cannot be used as it is: the user must
// change it. It is configedit's, so a command maps one type.
type Error = configedit.Error

// Doc is the file's contexts and its current one.
type Doc = configedit.Doc

// Bound bounds every configuration file, shakectl's or sf-client's.
var Bound = configedit.FileBound

func errorf(format string, a ...any) error { return &Error{Msg: fmt.Sprintf(format, a...)} }

// Read reads shakectl's config file at path once: one YAML document, a
// map whose keys other than current-context and contexts are among keys
// (a typo is reported rather than ignored), each a single value (a list
// where a URL belongs would otherwise read as "").
func Read(ctx context.Context, path string, keys []string) (map[string]any, error) {
	raw, err := userfile.Read(ctx, nil, path, Bound)
	if err != nil {
		return nil, err
	}
	return Parse(path, raw, keys)
}

// Parse is Read of the file's bytes.
func Parse(path string, raw []byte, keys []string) (map[string]any, error) {
	file := map[string]any{}
	if err := configedit.OneDocument(path, raw); err != nil {
		return nil, err
	}
	if err := yaml.Unmarshal(raw, &file); err != nil {
		return nil, errorf("config file %s is not valid YAML: %s", path, firstLine(strings.TrimPrefix(err.Error(), "yaml: ")))
	}
	if file == nil {
		file = map[string]any{}
	}
	for k, val := range file {
		if k == "current-context" || k == "contexts" {
			continue
		}
		if !slices.Contains(keys, k) {
			return nil, errorf("config file %s: unknown key %q (known: %s)", path, dottedKey(k, val), strings.Join(keys, ", "))
		}
		switch val.(type) {
		case nil, string, bool, int, int64, uint64, float64:
		default:
			return nil, errorf("config file %s: %s must be a single value, not a list or a map", path, k)
		}
	}
	return file, nil
}

// dottedKey names a nested key the way viper flattens it ("tls.verify"),
// the first in sorted order.
func dottedKey(k string, val any) string {
	m, ok := val.(map[string]any)
	if !ok || len(m) == 0 {
		return k
	}
	sub := slices.Sorted(maps.Keys(m))[0]
	return dottedKey(k+"."+sub, m[sub])
}

// Contexts reads the contexts out of a file Read gave; its error says
// what is wrong with them, without the file's name.
func Contexts(file map[string]any) (Doc, error) {
	var doc Doc
	switch cur := file["current-context"].(type) {
	case nil:
	case string:
		doc.CurrentContext = cur
	default:
		return doc, errors.New("current-context must be a name")
	}
	switch all := file["contexts"].(type) {
	case nil:
	case map[string]any:
		doc.Contexts = map[string]map[string]string{}
		for name, c := range all {
			m, ok := c.(map[string]any)
			if !ok && c != nil {
				return doc, fmt.Errorf("context %s must be a map of keys", name)
			}
			doc.Contexts[name] = map[string]string{}
			for k, val := range m {
				if val == nil {
					doc.Contexts[name][k] = ""
					continue
				}
				doc.Contexts[name][k] = fmt.Sprint(val)
			}
		}
	default:
		return doc, errors.New("contexts must be a map of named contexts")
	}
	return doc, nil
}

// ReadDoc reads the file's contexts as the context commands list them: a
// missing file has none.
func ReadDoc(ctx context.Context, path string) (Doc, error) {
	var doc Doc
	raw, err := userfile.Read(ctx, nil, path, Bound)
	if errors.Is(err, fs.ErrNotExist) {
		return doc, nil
	}
	if err != nil {
		return doc, err
	}
	if err := configedit.OneDocument(path, raw); err != nil {
		return doc, err
	}
	var all map[string]any
	if err := yaml.Unmarshal(raw, &all); err != nil {
		return doc, errorf("config file %s is not valid YAML: %s", path, firstLine(err.Error()))
	}
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return doc, errorf("config file %s: contexts: %s", path, firstLine(err.Error()))
	}
	return doc, nil
}

// KeyWarning names a file that holds the API key but can be read by other
// users, and the command that fixes it; nil when only its owner can.
func KeyWarning(path string) []string {
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm()&0o044 == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%s holds an API key and is readable by other users (mode %04o); run: chmod 600 %s", path, st.Mode().Perm(), path)}
}

// Interrupted reports whether a read ended because the run's context did;
// such a read is never "absent" nor a usage error.
func Interrupted(err error) bool {
	var ue *userfile.Error
	return errors.As(err, &ue) && ue.Interrupted()
}

// SFClient is what shakectl takes from an sf-client file.
type SFClient struct {
	APIURL    string `json:"apiurl"`
	Namespace string `json:"namespace"`
	Key       string `json:"key"`
}

// DefaultSystemFile is sf-client's system-wide configuration.
const DefaultSystemFile = "/etc/sf/shakenfist.json"

// SFClientFiles are sf-client's files in the order it reads them:
// ~/.shakenfist, then the system's (DefaultSystemFile when system is "").
func SFClientFiles(home, system string) []string {
	var out []string
	if home != "" {
		out = append(out, filepath.Join(home, ".shakenfist"))
	}
	if system == "" {
		system = DefaultSystemFile
	}
	return append(out, system)
}

// ReadSFClientFiles reads sf-client's files (SFClientFiles) and answers
// the first usable one, taken whole (a system key must not be sent to the
// URL a user's own file names), its path ("" when none is usable), and
// the warnings about files that were ignored. Its error is only ever a
// read that ctx ended.
func ReadSFClientFiles(ctx context.Context, home, system string) (sf SFClient, path string, warnings []string, err error) {
	for _, p := range SFClientFiles(home, system) {
		sf, ok, warning, err := ReadSFClient(ctx, p)
		if err != nil {
			return SFClient{}, "", warnings, err
		}
		if warning != "" {
			warnings = append(warnings, warning)
		}
		if ok {
			return sf, p, warnings, nil
		}
	}
	return SFClient{}, "", warnings, nil
}

// ReadSFClient reads one sf-client file. A file that does not exist or
// cannot be read counts as absent; one that exists but is not the expected
// JSON is ignored with a warning, since sf-client would refuse it too.
//
// Its error is only ever a read that ctx ended.
func ReadSFClient(ctx context.Context, path string) (sf SFClient, ok bool, warning string, err error) {
	raw, err := userfile.Read(ctx, nil, path, Bound)
	if Interrupted(err) {
		return sf, false, "", err
	}
	if err != nil {
		return sf, false, "", nil
	}
	if err := json.Unmarshal(raw, &sf); err != nil {
		return sf, false, fmt.Sprintf("ignoring %s: not valid JSON (%s)", path, firstLine(err.Error())), nil
	}
	return sf, true, "", nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
