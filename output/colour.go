package output

import "github.com/fatih/color"

// ColourScheme paints strings when colour is enabled and leaves them alone
// otherwise; it never consults global state, so a test's decision holds.
type ColourScheme struct{ enabled bool }

// NewColourScheme returns a scheme that paints only when enabled.
func NewColourScheme(enabled bool) ColourScheme { return ColourScheme{enabled: enabled} }

func (c ColourScheme) paint(attr color.Attribute, s string) string {
	if !c.enabled {
		return s
	}
	p := color.New(attr)
	p.EnableColor()
	return p.Sprint(s)
}

func (c ColourScheme) Red(s string) string    { return c.paint(color.FgRed, s) }
func (c ColourScheme) Green(s string) string  { return c.paint(color.FgGreen, s) }
func (c ColourScheme) Yellow(s string) string { return c.paint(color.FgYellow, s) }
func (c ColourScheme) Cyan(s string) string   { return c.paint(color.FgCyan, s) }
func (c ColourScheme) Bold(s string) string   { return c.paint(color.Bold, s) }
func (c ColourScheme) Gray(s string) string   { return c.paint(color.FgHiBlack, s) }
