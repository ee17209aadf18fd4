package probe

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Distribution says how requests are spread over the actors.
type Distribution struct {
	// Kind is "uniform", "hot" or "zipf".
	Kind string
	// Param is hot's fraction (0..1) or zipf's exponent s (> 0).
	Param float64
}

// String is the distribution as --distribution spells it.
func (d Distribution) String() string {
	switch d.Kind {
	case "", "uniform":
		return "uniform"
	default:
		return d.Kind + ":" + strconv.FormatFloat(d.Param, 'g', -1, 64)
	}
}

// ParseDistribution reads uniform, hot:FRACTION or zipf:S.
//
// hot:F sends the fraction F (0 ≤ F ≤ 1) of requests to the first actor and
// spreads the rest evenly over the others. zipf:S gives the k-th actor a
// share proportional to 1/k^S (S > 0; larger is more skewed).
func ParseDistribution(s string) (Distribution, error) {
	name, param, hasParam := strings.Cut(strings.TrimSpace(s), ":")
	switch name {
	case "uniform":
		if hasParam {
			return Distribution{}, fmt.Errorf("invalid distribution %q: uniform takes no parameter", s)
		}
		return Distribution{Kind: "uniform"}, nil
	case "hot":
		f, err := strconv.ParseFloat(param, 64)
		if !hasParam || err != nil || math.IsNaN(f) || f < 0 || f > 1 {
			return Distribution{}, fmt.Errorf("invalid distribution %q: want hot:FRACTION with a fraction between 0 and 1, e.g. hot:0.8", s)
		}
		return Distribution{Kind: "hot", Param: f}, nil
	case "zipf":
		v, err := strconv.ParseFloat(param, 64)
		if !hasParam || err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
			return Distribution{}, fmt.Errorf("invalid distribution %q: want zipf:S with an exponent S > 0, e.g. zipf:1.1", s)
		}
		return Distribution{Kind: "zipf", Param: v}, nil
	}
	return Distribution{}, fmt.Errorf("unknown distribution %q: want uniform, hot:FRACTION or zipf:S", s)
}

// actorSet is a run's actors: named ones, then generated ones named on
// demand (actor-0001 …), so a million actors cost no memory.
type actorSet struct {
	named     []string
	generated int
}

func (a actorSet) Len() int { return len(a.named) + a.generated }

// Name is actor i's name.
func (a actorSet) Name(i int) string {
	if i < len(a.named) {
		return a.named[i]
	}
	return generatedName(i-len(a.named), a.generated)
}

func generatedName(i, n int) string {
	width := max(len(strconv.Itoa(n)), 4)
	return fmt.Sprintf("actor-%0*d", width, i+1)
}

// GeneratedActors names n actors actor-0001, actor-0002, … (wider when n
// needs more digits).
func GeneratedActors(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = generatedName(i, n)
	}
	return out
}

// ReadActors reads actor names one a line; blank lines and lines starting
// with # are skipped.
func ReadActors(r io.Reader) ([]string, error) {
	var out []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		if strings.ContainsAny(s, " \t") {
			return nil, fmt.Errorf("line %d: actor name %q contains white space", line, s)
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// picker chooses the actor of request i deterministically from the seed, so
// a run with the same --seed sends the same actors in the same order,
// whichever worker happens to send request i.
type picker struct {
	n       int
	seed    uint64
	hot     bool
	hotFrac float64
	// cdf is nil for uniform; else cdf[k] is the probability of choosing an
	// actor with index ≤ k.
	cdf []float64
}

func newPicker(n int, d Distribution, seed uint64) *picker {
	p := &picker{n: n, seed: seed}
	switch d.Kind {
	case "hot":
		// Closed form, no table: the hot actor takes [0, F), the others
		// equal slices of the rest, so any number of actors costs nothing.
		if n > 1 {
			p.hot, p.hotFrac = true, d.Param
		}
	case "zipf":
		p.cdf = make([]float64, n)
		total := 0.0
		for k := range p.cdf {
			total += 1 / math.Pow(float64(k+1), d.Param)
			p.cdf[k] = total
		}
		for k := range p.cdf {
			p.cdf[k] /= total
		}
	}
	if p.cdf != nil {
		p.cdf[n-1] = 1
	}
	return p
}

// index returns the index of the actor of request i.
func (p *picker) index(i uint64) int {
	u := unitFloat(splitmix64(p.seed ^ splitmix64(i)))
	if p.hot {
		if u < p.hotFrac {
			return 0
		}
		rest := (1 - p.hotFrac) / float64(p.n-1)
		return min(1+int((u-p.hotFrac)/rest), p.n-1)
	}
	if p.cdf == nil {
		k := int(u * float64(p.n))
		if k >= p.n {
			k = p.n - 1
		}
		return k
	}
	k := sort.SearchFloat64s(p.cdf, u)
	// SearchFloat64s finds the first cdf ≥ u; u == cdf[k] belongs to k+1's
	// half-open interval, which only matters for exact ties.
	if k < len(p.cdf) && p.cdf[k] == u && k+1 < len(p.cdf) {
		k++
	}
	if k >= p.n {
		k = p.n - 1
	}
	return k
}

func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// unitFloat maps 64 random bits to [0, 1).
func unitFloat(x uint64) float64 { return float64(x>>11) / (1 << 53) }

// shardIndex is the actor choice of a shard's local request i, given the
// unsharded run's picker p; its argument is the shape's request number
// (burst and closed: this shard's own count from 0; open: the global
// request number, which openShape already uses for the due time).
//
// Every local request is first given its number g in the unsharded run:
// burst shard I sends the contiguous block of g after the lower shards',
// closed and open interleave (g = j×N + I). Then:
//   - uniform: the actors are partitioned (ActorPartition, from the shared
//     seed), and the shard picks uniformly among its own by g, so no two
//     shards ever address the same actor;
//   - hot and zipf: the shard picks with the unsharded picker by g, so the
//     union of the shards follows the distribution exactly as the unsharded
//     run would (the hot actor gets its fraction from every shard): the
//     distribution itself says that shards share actors.
//
// An unsharded run keeps p.index unchanged.
func shardIndex(p *picker, o *Options) func(uint64) int {
	s := o.Shard
	if s.Count <= 1 {
		return p.index
	}
	global := func(i uint64) uint64 { return i }
	switch o.Mode {
	case Burst:
		first := o.burstFirst
		global = func(i uint64) uint64 { return first + i }
	case Closed:
		global = func(i uint64) uint64 { return s.OpenGlobal(i) }
	}
	if o.Distribution.Kind != "uniform" {
		return func(i uint64) int { return p.index(global(i)) }
	}
	part := ActorPartition{Shard: s, Actors: p.n, Seed: o.Seed}
	local := newPicker(part.Count(), o.Distribution, o.Seed)
	return func(i uint64) int { return part.Global(local.index(global(i))) }
}
