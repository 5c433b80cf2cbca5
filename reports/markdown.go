package reports

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/idemcheck/idemcheck/harness"
)

// Markdown writes a summary for a GitHub Actions step summary or a pull
// request comment: the verdict, a score per target, and per target the
// reason for its score, its checks, and its top findings with the commands
// that replay them. It uses no images and no emoji: it reads the same as
// plain text.
func Markdown(w io.Writer, res *harness.Result, o Options) error {
	var b strings.Builder
	rep := Build(res)
	sum := rep.Summary
	b.WriteString("## idemcheck\n\n")
	fmt.Fprintf(&b, "%s\n\n", verdictLine(res, o.MinScore))
	fmt.Fprintf(&b, "Seed `%d` · %d target(s) · %d intents · %d attempts · %d effects · %d findings (%d critical) · %s",
		res.Seed, sum.Targets, sum.Intents, sum.Attempts, sum.Effects, sum.Findings, sum.Critical, res.Duration.Round(1e6))
	if v := res.Meta.Version; v != "" {
		fmt.Fprintf(&b, " · idemcheck %s", mdText(v))
	}
	if s := res.Meta.Shard; s != "" {
		fmt.Fprintf(&b, " · shard %s", mdText(s))
	}
	b.WriteString("\n")
	if r := RunCommand(res); r != "" {
		fmt.Fprintf(&b, "\nRepeat the run: `%s`", r)
		if d := res.Meta.ConfigDigest; d != "" {
			fmt.Fprintf(&b, " (configuration sha256 `%s`)", short(d, 12))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n| target | kind | score | findings | failed checks |\n| --- | --- | --- | --- | --- |\n")
	for _, t := range res.Targets {
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %s |\n", mdText(t.Name), mdText(t.Kind), scoreBadge(t, o.MinScore), len(t.Findings), mdText(failedChecks(t)))
	}
	for _, t := range res.Targets {
		fmt.Fprintf(&b, "\n### %s: %s\n\n", mdText(t.Name), scoreBadge(t, o.MinScore))
		if t.Error != "" {
			fmt.Fprintf(&b, "Could not be tested: %s\n", mdText(t.Error))
			continue
		}
		fmt.Fprintf(&b, "%s\n", mdText(t.Score.Reason))
		if n := t.Score.Next; n != nil {
			fmt.Fprintf(&b, "\nBlocked by `%s`: %s\n", n.Check, mdText(n.Message))
		}
		pass, fail, skip := 0, 0, 0
		for _, c := range t.Checks {
			switch c.Status {
			case harness.StatusPass:
				pass++
			case harness.StatusFail:
				fail++
			default:
				skip++
			}
		}
		fmt.Fprintf(&b, "\n<details><summary>Checks: %d fail, %d pass, %d skip</summary>\n\n| check | status | note |\n| --- | --- | --- |\n", fail, pass, skip)
		for _, c := range t.Checks {
			fmt.Fprintf(&b, "| `%s` | %s | %s |\n", c.ID, strings.ToUpper(string(c.Status)), mdText(c.Note))
		}
		b.WriteString("\n</details>\n")
		if len(t.Findings) == 0 {
			continue
		}
		fs := append([]harness.Finding(nil), t.Findings...)
		sort.SliceStable(fs, func(i, j int) bool { return rank(fs[i].Severity) > rank(fs[j].Severity) })
		b.WriteString("\nTop findings:\n\n")
		for i, f := range fs {
			if i == o.findings() {
				fmt.Fprintf(&b, "\n… and %d more finding(s): see the HTML or JSON report.\n", len(fs)-i)
				break
			}
			where := "`" + f.Check + "`"
			if f.Operation != "" {
				where += " " + mdText(f.Operation)
			}
			if f.Fault != "" {
				where += " under `" + f.Fault + "`"
			}
			flags := ""
			if f.Flaky {
				flags = " (flaky: its replay did not fail the same way)"
			}
			fmt.Fprintf(&b, "%d. **%s** %s%s: %s\n", i+1, f.Severity, where, flags, mdText(f.Message))
			if r := findingReplay(res, f); r != "" {
				fmt.Fprintf(&b, "   ```sh\n   %s\n   ```\n", r)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// scoreBadge is a target's score as emphasised text, e.g. "**score 2/3**".
func scoreBadge(t harness.TargetResult, minScore int) string {
	if t.Error != "" {
		return "**not scored**"
	}
	s := fmt.Sprintf("**score %d/3**", t.Score.Level)
	if t.Score.Level < minScore {
		s += fmt.Sprintf(" (below --min-score %d)", minScore)
	}
	return s
}

// verdictLine says, as the exit code does, whether the run passed its gate.
func verdictLine(res *harness.Result, minScore int) string {
	var untested, below, critical []string
	for _, t := range res.Targets {
		switch {
		case t.Error != "":
			untested = append(untested, t.Name)
			continue
		case t.Score.Level < minScore:
			below = append(below, t.Name)
		}
		for _, f := range t.Findings {
			if f.Severity == harness.Critical {
				critical = append(critical, t.Name)
				break
			}
		}
	}
	var why []string
	if len(untested) > 0 {
		why = append(why, "the harness could not test "+strings.Join(untested, ", "))
	}
	if len(below) > 0 {
		why = append(why, fmt.Sprintf("below --min-score %d: %s", minScore, strings.Join(below, ", ")))
	}
	if len(critical) > 0 {
		why = append(why, "critical findings: "+strings.Join(critical, ", "))
	}
	switch {
	case len(untested) > 0:
		return "**ERROR**: " + mdText(strings.Join(why, "; ")) + "."
	case len(why) > 0:
		return "**FAIL**: " + mdText(strings.Join(why, "; ")) + "."
	}
	return fmt.Sprintf("**PASS**: every target met --min-score %d and no finding is critical.", minScore)
}

// mdText makes s safe inside a Markdown paragraph or table cell: one line,
// no table separators, no HTML.
func mdText(s string) string {
	return strings.NewReplacer("\r", " ", "\n", " ", "|", `\|`, "<", "&lt;", ">", "&gt;", "`", "'").Replace(s)
}
