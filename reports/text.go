package reports

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/idemcheck/idemcheck/harness"
)

// Text writes a report for people: a table of targets, then for each
// target the reason for its score and its top findings.
func Text(w io.Writer, res *harness.Result, o Options) error {
	limit := o.findings()
	var b strings.Builder
	fmt.Fprintf(&b, "idemcheck: %d target(s), seed %d, %s\n\n", len(res.Targets), res.Seed, res.Duration.Round(1e6))
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	if o.Expected != nil {
		fmt.Fprintln(tw, "TARGET\tKIND\tSCORE\tBUILT FOR\tFINDINGS\tFAILED CHECKS")
	} else {
		fmt.Fprintln(tw, "TARGET\tKIND\tSCORE\tFINDINGS\tFAILED CHECKS")
	}
	for _, t := range res.Targets {
		score := fmt.Sprint(t.Score.Level)
		if t.Error != "" {
			score = "error"
		}
		failed := failedChecks(t)
		if o.Expected != nil {
			exp := "-"
			if e, ok := o.Expected[t.Name]; ok {
				exp = fmt.Sprint(e)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\n", t.Name, t.Kind, score, exp, len(t.Findings), failed)
		} else {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", t.Name, t.Kind, score, len(t.Findings), failed)
		}
	}
	tw.Flush()
	for _, t := range res.Targets {
		fmt.Fprintf(&b, "\n%s (%s)\n", t.Name, t.Kind)
		if t.Error != "" {
			fmt.Fprintf(&b, "  could not be tested: %s\n", t.Error)
			continue
		}
		fmt.Fprintf(&b, "  %s\n", t.Score.Reason)
		if n := t.Score.Next; n != nil {
			fmt.Fprintf(&b, "  blocked by %s: %s\n", n.Check, n.Message)
		}
		fs := append([]harness.Finding(nil), t.Findings...)
		sort.SliceStable(fs, func(i, j int) bool { return rank(fs[i].Severity) > rank(fs[j].Severity) })
		for i, f := range fs {
			if i == limit {
				fmt.Fprintf(&b, "  … and %d more finding(s)\n", len(fs)-i)
				break
			}
			where := f.Check
			if f.Fault != "" {
				where += " [" + f.Fault + "]"
			}
			fmt.Fprintf(&b, "  %-8s %s: %s\n", f.Severity, where, f.Message)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func rank(s harness.Severity) int {
	switch s {
	case harness.Critical:
		return 3
	case harness.Major:
		return 2
	}
	return 1
}

func failedChecks(t harness.TargetResult) string {
	var ids []string
	for _, c := range t.Checks {
		if c.Status == harness.StatusFail {
			ids = append(ids, c.ID)
		}
	}
	if len(ids) == 0 {
		return "-"
	}
	return strings.Join(ids, ", ")
}
