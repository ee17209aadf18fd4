// Package probe is the parking-probe engine: options, load shapes, the
// classification of answers, the recorder, the sampler and the router's
// scrapes. What a run produces, and everything that reads it again (the
// report, its schema, checks, merge, text and plot data), is in
// probe/report, which imports nothing of the engine.
package probe
