package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/shakenfist/shakectl/probe/report"
)

func figureJSON(t *testing.T) string {
	t.Helper()
	f := report.Figure{
		Version: report.FigureVersion, Load: "burst of 3", Mode: "burst", Scale: 1, StepSeconds: 0.1,
		Spectra:  []report.OutcomeSeries{{Outcome: "served", Count: 3, Points: []report.Point{{X: 1, Y: 0.01}, {X: 10, Y: 0.02}}}},
		Answers:  []report.OutcomeSeries{{Outcome: "served", Count: 3, Points: []report.Point{{X: 0, Y: 3}, {X: 0.1, Y: 0}}}},
		InFlight: []report.Point{{X: 0, Y: 0}, {X: 0.1, Y: 0}},
	}
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestRun(t *testing.T) {
	for _, tc := range []struct {
		name     string
		args     []string
		stdin    string
		code     int
		out, err string
	}{
		{"png", nil, figureJSON(t), 0, "\x89PNG", ""},
		{"svg", []string{"--format", "svg"}, figureJSON(t), 0, "<?xml", ""},
		{"help", []string{"--help"}, "", 0, "shakectl-plot draws a parking-probe figure as PNG or SVG.\n\nUsage:\n  shakectl-plot --format png|svg", ""},
		{"bad format", []string{"--format", "gif"}, figureJSON(t), 2, "", `--format "gif": want png or svg`},
		{"unknown flag", []string{"--colour"}, "", 2, "", "flag provided but not defined: -colour"},
		{"file argument", []string{"figure.json"}, "", 2, "", `unexpected argument "figure.json"`},
		{"not JSON", nil, "<html>", 1, "", "reading the figure from stdin"},
		{"empty stdin", nil, "", 1, "", "reading the figure from stdin: EOF"},
		{"other version", nil, `{"version": 99, "scale": 1, "step_seconds": 0.1}`, 1, "", "figure version 99"},
	} {
		var out, errOut bytes.Buffer
		code := run(tc.args, strings.NewReader(tc.stdin), &out, &errOut)
		if code != tc.code || !strings.HasPrefix(out.String(), tc.out) || !strings.Contains(errOut.String(), tc.err) {
			t.Errorf("%s: exit %d, stdout %.20q, stderr %q", tc.name, code, out.String(), errOut.String())
		}
		if code != 0 && out.Len() != 0 {
			t.Errorf("%s: failed but wrote %d bytes to stdout", tc.name, out.Len())
		}
	}
}
