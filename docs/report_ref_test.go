package docs_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/reports/schema"
)

// reportPage is reference/report.md: every field of the JSON report, from
// reports/schema/report.v1.json.
func reportPage(t *testing.T) string {
	d := readSchema(t, schema.ReportV1)
	var b strings.Builder
	title, _ := d.root["title"].(string)
	fmt.Fprintf(&b, "# %s\n\n%s\n\n", title, description(d.root))
	b.WriteString("The schema itself is [reports/schema/report.v1.json](../../reports/schema/report.v1.json) " +
		"(JSON Schema draft 2020-12); `schema.ValidateReport` (package `reports/schema`) checks a report against it. " +
		"The report formats, and what a person reads in each, are in [Reports](../guides/reports.md).\n\n")
	section := func(name string, s map[string]any) {
		fmt.Fprintf(&b, "## %s\n\n", name)
		if desc := description(s); desc != "" && name != "report" {
			b.WriteString(desc + "\n\n")
		}
		var rows [][]string
		for _, f := range fields("", s) {
			req := ""
			if f.required {
				req = "yes"
			}
			rows = append(rows, []string{code(f.path), d.typeOf(f.schema), req, description(f.schema)})
		}
		b.WriteString(table([]string{"field", "type", "always there", "description"}, rows))
		b.WriteString("\n")
	}
	section("report", d.root)
	for _, name := range d.order(d.root) {
		def, _ := d.defs[name].(map[string]any)
		section(name, def)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
