// Package report is what a parking-probe run produces and everything that
// reads it again: the report type and its strict JSON Schema
// (report.v1.schema.json, versioned by SchemaVersion), the outcome and
// check vocabulary (vocabulary.go, from which the help, the manual's tables
// and the schema's enums come), the checks and --expect expectations,
// merge, the text rendering, the plot data (Figure) and the reader of
// reports out of a pod log stream.
//
// It is a leaf: it imports the standard library and hdrhistogram-go only,
// never the engine (probe) or an HTTP stack, so "parking-probe merge", the
// plot and scripts that read reports link nothing else. Reading is bounded
// (MaxReportBytes, MaxRunSeconds, StreamLimits) and checks what is cheap
// before it decodes a histogram, because reports come from pod logs that
// anything may have written into.
package report
