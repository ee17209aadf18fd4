// Package htmlplottest checks a page that htmlplot.Write wrote, for the
// tests of htmlplot and of the commands that write pages (parking-probe
// --plot, merge --plot), so that every writer of a page is held to the
// same checks. It reads the page as a browser would; drawing it is
// htmlplot's browser test's business.
package htmlplottest

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"regexp"
	"strings"

	"github.com/shakenfist/shakectl/probe/report"
)

// Page is the data a page's script draws, as the page carries it.
type Page struct {
	Title   string                 `json:"title"`
	Lot     float64                `json:"lot,omitempty"`
	Latency []report.OutcomeSeries `json:"latency,omitempty"`
	Figure  *report.Figure         `json:"figure"`
}

// dataOpen starts the element that holds the page's data.
const dataOpen = `<script type="application/json" id="plot-data">`

// Data returns the data the page's script reads: the text of its data
// element up to the first "</script" in any case, where an HTML parser
// ends it, decoded.
func Data(page string) (*Page, error) {
	_, rest, ok := strings.Cut(page, dataOpen)
	if !ok {
		return nil, errors.New("no data element in the page")
	}
	end := strings.Index(strings.ToLower(rest), "</script")
	if end < 0 {
		return nil, errors.New("the data element is not closed")
	}
	var d Page
	if err := json.Unmarshal([]byte(rest[:end]), &d); err != nil {
		return nil, fmt.Errorf("the data element, cut where a browser ends it, is not JSON: %w", err)
	}
	if d.Figure == nil {
		return nil, errors.New("the page's data has no figure")
	}
	return &d, nil
}

// loadPatterns are what could make a browser fetch: a scheme, a src or
// href, CSS url() or @import, a protocol-relative address.
var loadPatterns = []*regexp.Regexp{
	regexp.MustCompile(`(?i)\b(https?|wss?|ftp|file|data|blob|javascript):`),
	regexp.MustCompile(`(?i)\b(src|href|srcset|action)\s*=`),
	regexp.MustCompile(`(?i)url\(`),
	regexp.MustCompile(`(?i)@import`),
	regexp.MustCompile(`//[a-z0-9.-]+\.[a-z]{2,}/`),
}

var (
	cspMeta = regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]*)">`)
	scripts = regexp.MustCompile(`(?s)<script>(.*?)</script>`)
)

// textParts are the page's elements that hold the run's own strings (a
// target URL is one): text, escaped, never markup.
var textParts = []*regexp.Regexp{
	regexp.MustCompile(`(?s)(<title>).*?(</title>)`),
	regexp.MustCompile(`(?s)(<h1>).*?(</h1>)`),
	regexp.MustCompile(`(?s)(<script type="application/json" id="plot-data">).*?(</script)`),
}

// CheckSelfContained checks that the page's own markup, script and style
// name no URL and load nothing: none of loadPatterns outside the elements
// that hold the run's strings as text (the title, the heading, the data),
// and a Content-Security-Policy before any script
// that forbids every load and allows exactly the page's two inline
// scripts (uPlot and the page's own) by their hashes; and that it has
// exactly its three script elements (data, uPlot, page), so no string in
// the data opened another.
func CheckSelfContained(page string) error {
	var errs []error
	own := page
	for _, re := range textParts {
		own = re.ReplaceAllString(own, "$1$2")
	}
	for _, re := range loadPatterns {
		if loc := re.FindStringIndex(own); loc != nil {
			errs = append(errs, fmt.Errorf("the page has %q (%s), which could make a browser fetch", own[max(0, loc[0]-20):min(len(own), loc[1]+20)], re))
		}
	}
	lower := strings.ToLower(page)
	if n, m := strings.Count(lower, "<script"), strings.Count(lower, "</script"); n != 3 || m != 3 {
		errs = append(errs, fmt.Errorf("%d <script and %d </script, want the page's own 3 (data, uPlot, page)", n, m))
	}
	m := cspMeta.FindStringSubmatchIndex(page)
	if m == nil {
		return errors.Join(append(errs, errors.New("no Content-Security-Policy meta element"))...)
	}
	if m[0] > strings.Index(page, "<script") {
		errs = append(errs, errors.New("the policy comes after a script: it would not govern it"))
	}
	csp := html.UnescapeString(page[m[2]:m[3]])
	if !strings.HasPrefix(csp, "default-src 'none';") {
		errs = append(errs, fmt.Errorf("policy %q does not start by forbidding every load", csp))
	}
	found := scripts.FindAllStringSubmatch(page, -1)
	var hashes []string
	for _, s := range found {
		h := sha256.Sum256([]byte(s[1]))
		hashes = append(hashes, "'sha256-"+base64.StdEncoding.EncodeToString(h[:])+"'")
	}
	if want := "script-src " + strings.Join(hashes, " ") + ";"; len(found) != 2 || !strings.Contains(csp, want) {
		errs = append(errs, fmt.Errorf("policy %q: want %q for the page's %d scripts", csp, want, len(found)))
	}
	return errors.Join(errs...)
}

// Check is CheckSelfContained, then Data: the page loads nothing, and its
// data decodes to a figure that can be drawn.
func Check(page string) (*Page, error) {
	if err := CheckSelfContained(page); err != nil {
		return nil, err
	}
	d, err := Data(page)
	if err != nil {
		return nil, err
	}
	if err := d.Figure.Check(); err != nil {
		return nil, fmt.Errorf("the page's figure cannot be drawn: %w", err)
	}
	return d, nil
}
