package probe

import (
	"strings"
	"testing"
)

func TestParseDistribution(t *testing.T) {
	good := map[string]Distribution{
		"uniform":  {Kind: "uniform"},
		"hot:0.8":  {Kind: "hot", Param: 0.8},
		"hot:1":    {Kind: "hot", Param: 1},
		"zipf:1.1": {Kind: "zipf", Param: 1.1},
	}
	for in, want := range good {
		got, err := ParseDistribution(in)
		if err != nil || got != want {
			t.Errorf("ParseDistribution(%q) = %+v, %v; want %+v", in, got, err, want)
		}
		if got.String() != in {
			t.Errorf("%+v prints as %q, want %q", got, got.String(), in)
		}
	}
	for _, in := range []string{"", "normal", "hot", "hot:", "hot:1.5", "hot:-0.1", "hot:NaN", "zipf:0", "zipf:-1", "zipf:x", "uniform:2"} {
		if _, err := ParseDistribution(in); err == nil {
			t.Errorf("ParseDistribution(%q) accepted", in)
		}
	}
}

func TestGeneratedActors(t *testing.T) {
	a := GeneratedActors(3)
	if strings.Join(a, ",") != "actor-0001,actor-0002,actor-0003" {
		t.Fatalf("got %v", a)
	}
	if a := GeneratedActors(12000); a[11999] != "actor-12000" || a[0] != "actor-00001" {
		t.Fatalf("wide names: %s … %s", a[0], a[11999])
	}
}

func TestReadActors(t *testing.T) {
	got, err := ReadActors(strings.NewReader("# hot ones\nalpha\n\n  beta  \n#gamma\n"))
	if err != nil || strings.Join(got, ",") != "alpha,beta" {
		t.Fatalf("got %v, %v", got, err)
	}
	if _, err := ReadActors(strings.NewReader("two words\n")); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Fatalf("white space in a name: %v", err)
	}
}

func shares(p *picker, n int) []float64 {
	counts := make([]float64, p.n)
	for i := range n {
		counts[p.index(uint64(i))]++
	}
	for i := range counts {
		counts[i] /= float64(n)
	}
	return counts
}

func TestPickerDistributions(t *testing.T) {
	actors := GeneratedActors(10)
	const n = 20000
	u := shares(newPicker(len(actors), Distribution{Kind: "uniform"}, 1), n)
	for i, s := range u {
		if s < 0.08 || s > 0.12 {
			t.Errorf("uniform: actor %d got %.3f of requests, want about 0.1", i, s)
		}
	}
	h := shares(newPicker(len(actors), Distribution{Kind: "hot", Param: 0.8}, 1), n)
	if h[0] < 0.77 || h[0] > 0.83 {
		t.Errorf("hot:0.8: the hot actor got %.3f", h[0])
	}
	for i := 1; i < len(h); i++ {
		if h[i] < 0.01 || h[i] > 0.035 {
			t.Errorf("hot:0.8: actor %d got %.3f, want about 0.022", i, h[i])
		}
	}
	z := shares(newPicker(len(actors), Distribution{Kind: "zipf", Param: 1}, 1), n)
	// Harmonic number H10 ≈ 2.929: the first actor gets ≈ 0.341, the second ≈ 0.171.
	if z[0] < 0.32 || z[0] > 0.36 || z[1] < 0.15 || z[1] > 0.19 || z[9] > 0.05 {
		t.Errorf("zipf:1 shares %.3f", z)
	}
	one := shares(newPicker(1, Distribution{Kind: "hot", Param: 0.2}, 1), 100)
	if one[0] != 1 {
		t.Errorf("a single actor gets everything, got %v", one)
	}
}

func TestPickerIsRepeatable(t *testing.T) {
	actors := GeneratedActors(50)
	a := newPicker(len(actors), Distribution{Kind: "zipf", Param: 1.2}, 42)
	b := newPicker(len(actors), Distribution{Kind: "zipf", Param: 1.2}, 42)
	c := newPicker(len(actors), Distribution{Kind: "zipf", Param: 1.2}, 43)
	same, differ := true, false
	// Ask b in reverse order: the choice depends on the request number,
	// not on the order workers ask in.
	for i := 999; i >= 0; i-- {
		if a.index(uint64(i)) != b.index(uint64(i)) {
			same = false
		}
		if a.index(uint64(i)) != c.index(uint64(i)) {
			differ = true
		}
	}
	if !same {
		t.Error("the same seed chose different actors")
	}
	if !differ {
		t.Error("different seeds chose the same 1000 actors")
	}
}

func TestTemplates(t *testing.T) {
	tp, err := parseTemplate("--host-template", DefaultHostTemplate)
	if err != nil {
		t.Fatal(err)
	}
	if got := tp.render("actor-0001", "prod"); got != "actor-0001.prod.actors.resources.substrate.ate.dev" {
		t.Fatalf("rendered %q", got)
	}
	for in, msg := range map[string]string{
		"{atespace}.example":  "must contain {actor}",
		"no-placeholders":     "must contain {actor}",
		"{actor}.{namespace}": "unknown placeholder {namespace}",
		"{actor":              "unmatched {",
		"actor}":              "unmatched }",
		"}{actor}":            "unmatched }",
	} {
		_, err := parseTemplate("--host-template", in)
		if err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("parseTemplate(%q) = %v, want %q", in, err, msg)
		}
	}
}
