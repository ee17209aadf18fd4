// Package htmlplot writes a parking-probe figure (report.Figure) as one
// self-contained HTML page, the way `vegeta plot` does (tsenart/vegeta
// lib/plot, cf58112): the figure embedded as JSON, the charting library
// (uPlot, MIT, vendored under assets/) and the page's own script inlined,
// so the file can be mailed, attached to a CI run or opened offline.
//
// Opening the page fetches nothing: it names no URL, and its
// Content-Security-Policy (default-src 'none', the two inline scripts
// allowed by their SHA-256) forbids every load, so a hostile target URL or
// label in the figure can neither run a script nor make the browser call
// out.
//
// It depends only on report.Figure and the types of its fields, so that the
// figure can move to the report package without touching the drawing.
package htmlplot

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"strings"
	"sync"

	"github.com/shakenfist/shakectl/probe/report"
)

// uplotVersion is the vendored uPlot's version (assets/README.md).
const uplotVersion = "1.6.32"

var (
	//go:embed assets/uPlot.iife.min.js
	uplotJS string
	//go:embed assets/uPlot.min.css
	uplotCSS string
	//go:embed assets/uPlot.LICENSE
	uplotLicense string
	//go:embed assets/page.js
	pageJS string
	//go:embed assets/page.css
	pageCSS string
	//go:embed assets/page.html.tmpl
	pageHTML string
)

// Options are what the page shows beyond the figure.
type Options struct {
	// Title heads the page and names its browser tab; "" gives
	// "parking-probe " and the figure's load.
	Title string
	// Lot is the router's parking lot, the most requests it parks at once
	// (statusz max_parked), drawn as a line on the parked panel; 0 when
	// unknown, and then not drawn.
	Lot float64
	// Latency is each outcome's latency over the run, one point per
	// answer (X when it arrived, Y its latency, in seconds), as
	// report.LatencyOverTime gives from a run's kept samples; nil (a
	// report read back or merged has no samples) leaves the panel out.
	Latency []report.OutcomeSeries
}

// pageData is the JSON the page's script draws: the figure as it is, and
// the options.
type pageData struct {
	Title   string                 `json:"title"`
	Lot     float64                `json:"lot,omitempty"`
	Latency []report.OutcomeSeries `json:"latency,omitempty"`
	Figure  *report.Figure         `json:"figure"`
}

// assets are the page's fixed parts, prepared once.
type assets struct {
	tmpl *template.Template
	// uplot is the library with its banner (which names the project's web
	// address) replaced by its licence.
	uplot string
	csp   string
}

var pageAssets = sync.OnceValues(func() (*assets, error) {
	banner := "/*! https://github.com/leeoniya/uPlot (v" + uplotVersion + ") */"
	body, ok := strings.CutPrefix(uplotJS, banner)
	if !ok {
		return nil, fmt.Errorf("the vendored uPlot does not start with the banner of version %s (assets/README.md says how to update it)", uplotVersion)
	}
	// The MIT licence asks for its notice in every copy: the page is one.
	lib := "/*! uPlot v" + uplotVersion + "\n\n" + uplotLicense + "\n*/" + body
	for _, s := range []string{lib, pageJS} {
		if strings.Contains(strings.ToLower(s), "</script") {
			return nil, errors.New("an embedded script contains </script")
		}
	}
	for _, s := range []string{uplotCSS, pageCSS} {
		if strings.Contains(strings.ToLower(s), "</style") {
			return nil, errors.New("an embedded style sheet contains </style")
		}
	}
	// Inline scripts run only if their hash is listed; an element a
	// hostile string managed to inject would not. Styles may be inline:
	// uPlot sets them on its elements.
	csp := "default-src 'none'; script-src " + scriptHash(lib) + " " + scriptHash(pageJS) +
		"; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"
	t, err := template.New("page").Parse(pageHTML)
	if err != nil {
		return nil, err
	}
	return &assets{tmpl: t, uplot: lib, csp: csp}, nil
})

func scriptHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(h[:]) + "'"
}

// Write writes fig as one HTML page to w. It checks the figure first, and
// writes nothing when it cannot be drawn.
func Write(w io.Writer, fig *report.Figure, opts Options) error {
	if fig == nil {
		return errors.New("no figure to draw")
	}
	if err := fig.Check(); err != nil {
		return err
	}
	a, err := pageAssets()
	if err != nil {
		return err
	}
	title := opts.Title
	if title == "" {
		title = "parking-probe " + fig.Load
	}
	// As the JSON has it: the page is UTF-8 throughout.
	title = strings.ToValidUTF8(title, "\uFFFD")
	// encoding/json escapes <, > and & (and U+2028, U+2029) in strings,
	// so no label or URL can close the <script> element that holds the
	// data or open a comment in it.
	data, err := json.Marshal(pageData{Title: title, Lot: opts.Lot, Latency: opts.Latency, Figure: fig})
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	err = a.tmpl.Execute(&buf, map[string]any{
		"Title":    title,
		"CSP":      a.csp,
		"UPlotCSS": template.CSS(uplotCSS),
		"PageCSS":  template.CSS(pageCSS),
		"UPlotJS":  template.JS(a.uplot),
		"PageJS":   template.JS(pageJS),
		"Data":     template.JS(data),
	})
	if err != nil {
		return err
	}
	_, err = w.Write(buf.Bytes())
	return err
}
