package builders

import (
	"context"

	"github.com/shakenfist/shakectl/client"
	"testing"

	"github.com/shakenfist/shakectl/cmd/cmdutil"
)

// The metadata verbs' help names the noun as English says it: "an
// artifact", "a blob", not "a artifact".
func TestMetadataHelpSaysTheNounsArticle(t *testing.T) {
	for noun, want := range map[string]string{
		"artifact":  "Show an artifact's metadata",
		"interface": "Show an interface's metadata",
		"blob":      "Show a blob's metadata",
		"network":   "Show a network's metadata",
	} {
		cmds := NewMetadataCmds(&cmdutil.Factory{}, MetadataSpec{Noun: noun, Arg: "REF", Ref: "x", Get: func(*client.Client, context.Context, string) (map[string]any, error) { return nil, nil }})
		if got := cmds[0].Short; got != want {
			t.Errorf("%s get-metadata: Short = %q, want %q", noun, got, want)
		}
	}
}
