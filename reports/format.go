package reports

import (
	"fmt"
	"io"
	"strings"

	"github.com/idemcheck/idemcheck/record"
)

// Options tune the renderers; the zero value is usable.
type Options struct {
	// Expected, when set, adds the score each target was built for (the
	// demo's reference targets) to the text report.
	Expected map[string]int
	// Findings is how many findings per target the text and Markdown
	// reports show; 0 means 5.
	Findings int
	// MinScore is the score the run was gated on (--min-score); the
	// Markdown and HTML reports mark the targets below it. A result that
	// carries no gate (harness.ApplyGate) is judged against it.
	MinScore int
	// Color colours the text report's scores and severities (for a
	// terminal that wants colour; never for a file).
	Color bool
}

func (o Options) findings() int {
	if o.Findings <= 0 {
		return 5
	}
	return o.Findings
}

// Format is one kind of report.
type Format struct {
	// Name is what --format takes.
	Name string
	// File is the report's file name under --out.
	File string
	// Render writes the report of res.
	Render func(w io.Writer, res *record.Result, o Options) error
}

// Formats returns the report formats, in the order of their documentation.
func Formats() []Format {
	return []Format{
		{"text", "report.txt", Text},
		{"json", "report.json", JSON},
		{"junit", "report.xml", JUnit},
		{"md", "report.md", Markdown},
		{"html", "report.html", HTML},
	}
}

// LookupFormat returns the format called name.
func LookupFormat(name string) (Format, bool) {
	for _, f := range Formats() {
		if f.Name == name {
			return f, true
		}
	}
	return Format{}, false
}

// FormatNames returns the names of the formats, comma-separated.
func FormatNames() string {
	var names []string
	for _, f := range Formats() {
		names = append(names, f.Name)
	}
	return strings.Join(names, ", ")
}

// ParseFormats parses a comma-separated list of format names (the first
// is the one meant for stdout); duplicates and blanks are dropped.
func ParseFormats(list string) ([]Format, error) {
	var out []Format
	seen := map[string]bool{}
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" || seen[name] {
			continue
		}
		f, ok := LookupFormat(name)
		if !ok {
			return nil, fmt.Errorf("unknown format %q (known: %s)", name, FormatNames())
		}
		seen[name] = true
		out = append(out, f)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no format given (known: %s)", FormatNames())
	}
	return out, nil
}
