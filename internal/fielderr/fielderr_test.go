package fielderr

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"github.com/shakenfist/shakectl/internal/srcscan"
)

func flag(field string) string {
	return map[string]string{"Rate": "--rate", "Checks.Budget": "--budget"}[field]
}

// A message names fields; a command renders its flags in their place, and
// leaves a template's own lower-case braces and a quoted value alone.
func TestRender(t *testing.T) {
	err := Errorf("{Rate} %g with {Checks.Budget} %s: {actor} %q", 2.5, "3s", "{Rate}")
	if got, want := err.Error(), `Rate 2.5 with Checks.Budget 3s: {actor} "{Rate}"`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if got, want := err.Render(flag), `--rate 2.5 with --budget 3s: {actor} "{Rate}"`; got != want {
		t.Errorf("Render = %q, want %q", got, want)
	}
	if got := Errorf("{Unknown} is wrong").Render(flag); got != "Unknown is wrong" {
		t.Errorf("a field without a flag: %q", got)
	}
	if got := err.Fields(); len(got) != 2 || got[0] != "Rate" || got[1] != "Checks.Budget" {
		t.Errorf("Fields() = %q", got)
	}
}

// Every rule errors.Join put together is rendered, one a line; a wrapped
// cause stays reachable.
func TestRenderJoinedAndWrapped(t *testing.T) {
	joined := errors.Join(Errorf("{Rate} is wrong"), errors.New("plain {Rate}"), Errorf("{Checks.Budget}: %w", fs.ErrNotExist))
	if got, want := Render(joined, flag), "--rate is wrong\nplain {Rate}\n--budget: file does not exist"; got != want {
		t.Errorf("Render = %q, want %q", got, want)
	}
	r := Rendered(joined, flag)
	if r.Error() != Render(joined, flag) || !errors.Is(r, fs.ErrNotExist) {
		t.Errorf("Rendered = %v, is ErrNotExist %v", r, errors.Is(r, fs.ErrNotExist))
	}
	if Rendered(nil, flag) != nil {
		t.Error("Rendered(nil) is not nil")
	}
}

// A Renderer wrapped with context is rendered where the message quotes
// it; one rendered already is left alone, and so is an argument that
// looks like a placeholder.
func TestRenderWrapped(t *testing.T) {
	wrapped := fmt.Errorf("listing: %w", Errorf("{Rate} %q is wrong", "{Rate}"))
	if got, want := Render(wrapped, flag), `listing: --rate "{Rate}" is wrong`; got != want {
		t.Errorf("Render = %q, want %q", got, want)
	}
	done := fmt.Errorf("listing: %w", Rendered(Errorf("{Rate} is wrong"), func(string) string { return "-r" }))
	if got, want := Render(done, flag), "listing: -r is wrong"; got != want {
		t.Errorf("Render of a rendered error = %q, want %q", got, want)
	}
	if got, want := Sprintf(flag, "give {Checks.Budget} more than %s", "{Rate}"), "give --budget more than {Rate}"; got != want {
		t.Errorf("Sprintf = %q, want %q", got, want)
	}
}

// fielderr imports the standard library alone: leaves (probe/report) name
// their options with it, and must not link a flag package (pflag links
// net) through it.
func TestFieldErrIsAStandardLibraryLeaf(t *testing.T) {
	srcscan.Walk(t, []string{"."}, 1, func(f srcscan.File) {
		for _, p := range f.Imports() {
			if !srcscan.StandardLibrary(p) {
				t.Errorf("%s imports %s: fielderr stays a standard-library leaf", f.Rel, p)
			}
		}
	}, "fieldertest") // the tests' helper, not fielderr
}
