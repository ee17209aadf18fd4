package docgen

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
	"github.com/shakenfist/shakectl/probe/report"
)

// GeneratedTables are the tables of the manual (docs/*.md) made from the
// code, by the name their BEGIN and END markers give them: the settings
// table, and parking-probe's outcomes and checks (its vocabulary).
func GeneratedTables() map[string]string {
	return map[string]string{
		"settings": cmdutil.SettingsMarkdown(),
		"outcomes": report.OutcomeMarkdown(),
		"checks":   report.CheckMarkdown(),
	}
}

// generatedBlock is one generated table: the BEGIN marker's line (which
// says where the table comes from and how to regenerate it), the table,
// and the END marker.
var generatedBlock = regexp.MustCompile(`(?s)(<!-- BEGIN ([a-z-]+)[^\n]*-->\n)(.*?)(<!-- END ([a-z-]+) -->)`)

// FillPage returns a page of the manual with every generated table made
// afresh. A marker naming no table, or an END that is not its BEGIN's, is
// an error: a table that silently stopped being generated would go stale.
func FillPage(name string, page []byte) ([]byte, error) {
	var err error
	tables := GeneratedTables()
	out := generatedBlock.ReplaceAllFunc(page, func(m []byte) []byte {
		sub := generatedBlock.FindSubmatch(m)
		table, ok := tables[string(sub[2])]
		switch {
		case !bytes.Equal(sub[2], sub[5]):
			err = fmt.Errorf("%s: the table BEGIN %s ends at END %s", name, sub[2], sub[5])
		case !ok:
			err = fmt.Errorf("%s: no generated table is named %q", name, sub[2])
		default:
			return slices.Concat(sub[1], []byte(table), sub[4])
		}
		return m
	})
	return out, err
}

// WriteDocs fills the generated tables of every page in dir, rewriting a
// page only when a table changed.
func WriteDocs(dir string) error {
	pages, err := filepath.Glob(filepath.Join(dir, "*.md"))
	if err != nil {
		return err
	}
	for _, p := range pages {
		old, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		filled, err := FillPage(filepath.Base(p), old)
		if err != nil {
			return err
		}
		if !bytes.Equal(old, filled) {
			if err := os.WriteFile(p, filled, 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}
