package reports

import (
	"fmt"
	"io"
	"strings"

	"github.com/idemcheck/idemcheck/record"
)

// Markdown writes a summary for a GitHub Actions step summary or a pull
// request comment: the verdict, a score per target, and per target the
// reason for its score, its checks, and its top findings with the commands
// that replay them. It uses no images and no emoji: it reads the same as
// plain text.
func Markdown(w io.Writer, res *record.Result, o Options) error {
	res = withGate(cleaned(res), o) // nothing a target printed reaches the report raw
	var b strings.Builder
	rep := Build(res)
	sum := rep.Summary
	b.WriteString("## idemcheck\n\n")
	fmt.Fprintf(&b, "%s\n\n", verdictLine(res, o.MinScore))
	fmt.Fprintf(&b, "Seed `%d` · %s · %s · %s · %s · %s (%d critical) · %s",
		res.Seed, plural(sum.Targets, "target", "targets"), plural(sum.Intents, "intent", "intents"), plural(sum.Attempts, "attempt", "attempts"),
		plural(sum.Effects, "effect", "effects"), plural(sum.Findings, "finding", "findings"), sum.Critical, res.Duration.Round(1e6))
	if v := res.Meta.Version; v != "" {
		fmt.Fprintf(&b, " · idemcheck %s", mdText(v))
	}
	if s := res.Meta.Shard; s != "" {
		fmt.Fprintf(&b, " · shard %s", mdText(s))
	}
	b.WriteString("\n")
	if res.Nonce != 0 {
		b.WriteString("\n" + freshKeysNote + "\n")
	}
	if r := RunCommand(res); r != "" {
		fmt.Fprintf(&b, "\nRepeat the run: %s", mdCode(r))
		if d := res.Meta.ConfigDigest; d != "" {
			fmt.Fprintf(&b, " (configuration sha256 %s)", mdCode(short(d, 12)))
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
		fmt.Fprintf(&b, "%s\n", mdLine(t.Score.Reason))
		if n := t.Score.Next; n != nil {
			fmt.Fprintf(&b, "\nBlocked by %s: %s\n", mdCode(n.Check), mdText(n.Message))
		}
		if g := t.Gate; g != nil {
			state := "met"
			if !g.Met {
				state = "**not met**"
			}
			fmt.Fprintf(&b, "\nGate %s: %s.\n", state, mdText(g.Reason))
		}
		if d := t.Baseline; d != nil {
			mdBaseline(&b, res, d)
		}
		pass, fail, skip := 0, 0, 0
		for _, c := range t.Checks {
			switch c.Status {
			case record.StatusPass:
				pass++
			case record.StatusFail:
				fail++
			default:
				skip++
			}
		}
		fmt.Fprintf(&b, "\n<details><summary>Checks: %d fail, %d pass, %d skip</summary>\n\n| check | status | note |\n| --- | --- | --- |\n", fail, pass, skip)
		for _, c := range t.Checks {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", mdCell(mdCode(c.ID)), mdText(strings.ToUpper(string(c.Status))), mdText(c.Note))
		}
		b.WriteString("\n</details>\n")
		if gs := notExamined(t); len(gs) > 0 {
			b.WriteString("\nNot examined:\n\n")
			for _, g := range gs {
				subjects := make([]string, len(g.Subjects))
				for i, s := range g.Subjects {
					subjects[i] = mdText(s)
				}
				fmt.Fprintf(&b, "- %s: %s\n", strings.Join(subjects, ", "), mdText(g.Reason))
			}
		}
		if lines := attributionLines(t); len(lines) > 0 {
			b.WriteString("\nEffects:\n\n")
			for _, line := range lines {
				fmt.Fprintf(&b, "- %s\n", mdText(line))
			}
		}
		if lines := coverageLines(t); len(lines) > 0 {
			b.WriteString("\nEffect points:\n\n")
			for _, line := range lines {
				fmt.Fprintf(&b, "- %s\n", mdText(line))
			}
		}
		b.WriteString(mdTrial(t))
		if len(t.Findings) == 0 {
			continue
		}
		fs, _, heads := findingsOrder(t)
		limit := shown(len(fs), heads, o.findings())
		b.WriteString("\nTop findings:\n\n")
		for i, f := range fs {
			if i == limit {
				fmt.Fprintf(&b, "\n… and %s: see the HTML or JSON report.\n", plural(len(fs)-i, "more finding", "more findings"))
				break
			}
			where := mdCode(f.Check)
			if op := operationLabel(f); op != "" {
				where += " " + mdText(op)
			}
			if f.Fault != "" {
				where += " under " + mdCode(f.Fault)
				if f.Point != "" {
					where += " at " + mdText(f.Point)
				}
			}
			flags := ""
			if f.Flaky {
				flags = " (flaky: seen once, never again when replayed; not counted)"
			}
			fmt.Fprintf(&b, "%d. **%s** %s%s: %s\n", i+1, mdText(string(f.Severity)), where, flags, mdText(f.Message))
			if r := findingReplay(res, f); r != "" {
				r = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(r)
				fence := mdFence(r)
				fmt.Fprintf(&b, "   %ssh\n   %s\n   %s\n", fence, r, fence)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mdBaseline writes what changed since the baseline: the new findings,
// then the fixed ones.
func mdBaseline(b *strings.Builder, res *record.Result, d *record.TargetDiff) {
	fmt.Fprintf(b, "\n**Since the baseline**")
	if res.Gate != nil && res.Gate.Baseline != "" {
		fmt.Fprintf(b, " (%s)", mdCode(res.Gate.Baseline))
	}
	fmt.Fprintf(b, ": %s.\n", mdText(d.Summary()))
	for _, sec := range []struct {
		title string
		keys  []record.FindingKey
	}{{"New", d.New}, {"Fixed", d.Fixed}} {
		if len(sec.keys) == 0 {
			continue
		}
		fmt.Fprintf(b, "\n%s:\n\n", sec.title)
		for _, k := range sec.keys {
			where := mdCode(k.Check)
			if k.Operation != "" {
				where += " " + mdText(k.Operation)
			}
			if k.Fault != "" {
				where += " under " + mdCode(k.Fault)
			}
			fmt.Fprintf(b, "- **%s** %s: %s\n", mdText(string(k.Severity)), where, mdText(k.Message))
		}
	}
}

// scoreBadge is a target's score as emphasised text, e.g. "**score 2/3**",
// with the gate's reason when the target did not meet it.
func scoreBadge(t record.TargetResult, minScore int) string {
	if t.Error != "" {
		return "**not scored**"
	}
	s := fmt.Sprintf("**score %d/3**", t.Score.Level)
	if t.Score.Partial {
		s = "**partial score**"
	}
	switch {
	case t.Gate != nil && !t.Gate.Met:
		s += " (fails the gate: " + mdText(t.Gate.Reason) + ")"
	case t.Gate == nil && !t.Score.Partial && t.Score.Level < minScore:
		s += fmt.Sprintf(" (below --min-score %d)", minScore)
	}
	return s
}

// verdictLine says, as the exit code does, whether the run passed its
// gate (the result's, else that of minScore), and why.
// freshKeysNote says why state that outlives a run cannot distort the next
// one; reports of a run with a nonce carry it.
const freshKeysNote = "Keys and markers are new in every run, even with the same seed: what a target kept from earlier runs (a database) needs no reset."

func verdictLine(res *record.Result, minScore int) string {
	if res.Gate == nil {
		res = withGate(cleaned(res), Options{MinScore: minScore})
	}
	var untested []string
	for _, t := range res.Targets {
		if t.Error != "" {
			untested = append(untested, t.Name)
		}
	}
	g := res.Gate
	switch {
	case len(untested) > 0:
		return "**ERROR**: the harness could not test " + mdText(strings.Join(untested, ", ")) + "."
	case !g.Met:
		return "**FAIL**: " + mdText(g.Reason) + "."
	}
	return "**PASS**: " + mdText(g.Reason) + "."
}
