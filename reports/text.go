package reports

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/record"
)

// TextWidth is the width the text report fits in: every line of it is at
// most this many columns.
const TextWidth = 80

// Text writes a report for people, in TextWidth columns: a table of
// targets, then for each target the reason for its score, its top
// findings (long lists of evidence summarised: the JSON and HTML reports
// keep them whole) and the minimal counterexample of a failing generated
// trial. With Options.Color, scores and severities are coloured.
func Text(w io.Writer, res *record.Result, o Options) error {
	res = cleaned(res) // nothing a target printed reaches the report raw
	limit := o.findings()
	var b strings.Builder
	fmt.Fprintf(&b, "idemcheck: %s, seed %d, %s\n", plural(len(res.Targets), "target", "targets"), res.Seed, res.Duration.Round(1e6))
	if res.Nonce != 0 {
		b.WriteString(Wrap(freshKeysNote, "", "", TextWidth))
	}
	b.WriteString("\n")
	textTable(&b, res, o)
	for _, t := range res.Targets {
		fmt.Fprintf(&b, "\n%s\n", o.paint(colorBold, oneLine(t.Name+" ("+t.Kind+")")))
		if t.Error != "" {
			b.WriteString(Wrap("could not be tested: "+t.Error, "  ", "    ", TextWidth))
			continue
		}
		b.WriteString(o.paintScore(t.Score.Level, Wrap(textReason(t), "  ", "  ", TextWidth)))
		fs, blocking, heads := findingsOrder(t)
		if n := t.Score.Next; n != nil && blocking < 0 {
			// A check that did not run: no finding says it.
			b.WriteString(Wrap(fmt.Sprintf("blocked by %s: %s", n.Check, n.Message), "  ", "    ", TextWidth))
		}
		if n := shown(len(fs), heads, limit); n < len(fs) {
			b.WriteString(Wrap(fmt.Sprintf("%d findings; %d shown, the worst of each failing check first (all are in the JSON and HTML reports):", len(fs), n), "  ", "    ", TextWidth))
			fs = fs[:n]
		}
		replays := map[string]bool{}
		for i, f := range fs {
			head := f.Check
			if f.Fault != "" {
				head += " [" + record.FaultAt(f.Fault, f.Point) + "]"
			}
			if i == 0 && blocking >= 0 {
				head += fmt.Sprintf(" (blocks level %d)", t.Score.Next.Level)
			}
			if f.Trial {
				head += " (generated trial)"
			}
			if f.Flaky {
				head += " (flaky)"
			}
			sev := string(f.Severity)
			line := Wrap(sev+" "+head+": "+Summarise(f.Message), "  ", "    ", TextWidth)
			b.WriteString(strings.Replace(line, sev, o.paintSeverity(f.Severity, sev), 1))
			if cmd := ReplayCommand(res, f); cmd != "" && !f.Trial && res.Meta.Command != "demo" && !replays[cmd] {
				// Never wrapped, so that it can be copied whole; said
				// once, under the first finding it replays; a trial's is
				// under its counterexample, the demo's is the whole demo.
				replays[cmd] = true
				if line := "    replay: " + cmd; width(line) <= TextWidth {
					b.WriteString(line + "\n")
				} else {
					b.WriteString("    replay:\n      " + cmd + "\n")
				}
			}
		}
		for _, g := range notExamined(t) {
			b.WriteString(Wrap(g.String(), "  ", "    ", TextWidth))
		}
		for _, line := range attributionLines(t) {
			b.WriteString(Wrap(line, "  ", "    ", TextWidth))
		}
		for _, line := range coverageLines(t) {
			b.WriteString(Wrap(line, "  ", "    ", TextWidth))
		}
		b.WriteString(trialText(t))
		if sc := t.Scenario; sc != nil && sc.Trials > 0 && len(TrialSteps(t)) == 0 {
			line := fmt.Sprintf("%s found nothing the probes did not", plural(sc.Trials, "generated trial", "generated trials"))
			if sc.Stopped != "" {
				line += " (" + sc.Stopped + ")"
			}
			b.WriteString(Wrap(line, "  ", "    ", TextWidth))
		}
	}
	b.WriteString("\n")
	for _, line := range strings.Split(GateText(res, o), "\n") {
		if width(line) <= TextWidth {
			b.WriteString(line + "\n")
			continue
		}
		indent := strings.Repeat(" ", len(line)-len(strings.TrimLeft(line, " ")))
		b.WriteString(Wrap(strings.TrimLeft(line, " "), indent, indent+"    ", TextWidth))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// textReason is t's score reason as the text report says it: what was
// not examined that could lower the score is listed under it, each with
// its reason, so the reason points there rather than say it all twice.
func textReason(t record.TargetResult) string {
	r := t.Score.Reason
	i := strings.Index(r, " — "+checks.LimitsLead)
	if i < 0 {
		return r
	}
	for _, u := range t.NotExamined {
		if u.Limits() {
			return r[:i] + " — what was not examined could lower it (listed below)"
		}
	}
	return r
}

// trialText tells the minimal counterexample of t's failing generated
// trial as numbered steps, restarts included; "" when no trial failed.
func trialText(t record.TargetResult) string {
	steps := TrialSteps(t)
	if len(steps) == 0 {
		return ""
	}
	var b strings.Builder
	head := "a generated trial failed"
	if sc := t.Scenario; sc != nil && len(sc.Findings) > 0 {
		head += " (" + strings.Join(trialChecks(sc), ", ") + ")"
	}
	head += "; its minimal counterexample, " + plural(len(steps), "step", "steps")
	if rate := t.Scenario.Rate(); rate != "" {
		head += " (" + rate + ")"
	}
	b.WriteString(Wrap(head+":", "  ", "    ", TextWidth))
	for i, s := range steps {
		num := fmt.Sprintf("%d. ", i+1)
		b.WriteString(Wrap(num+s, "    ", strings.Repeat(" ", 4+len(num)), TextWidth))
	}
	// The command that runs the saved trial again, when it was saved: on
	// a line of its own, never wrapped, so that it can be copied whole.
	for _, f := range t.Findings {
		if f.Trial && f.Replay != "" {
			b.WriteString("  replay it:\n    " + f.Replay + "\n")
			break
		}
	}
	return b.String()
}

// trialChecks are the checks a counterexample failed, each once.
func trialChecks(sc *record.ScenarioResult) []string {
	var ids []string
	seen := map[string]bool{}
	for _, f := range sc.Findings {
		if !seen[f.Check] {
			seen[f.Check] = true
			ids = append(ids, f.Check)
		}
	}
	return ids
}

// TrialSteps is the minimal counterexample of t's failing generated trial,
// one step per element, without numbers; nil when no trial failed.
func TrialSteps(t record.TargetResult) []string {
	sc := t.Scenario
	if sc == nil {
		return nil
	}
	text := sc.Steps
	if text == "" && sc.Counterexample != nil {
		text = sc.Counterexample.String()
	}
	var out []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		// Drop the number the step list carries: each format numbers its own.
		if i := strings.Index(line, ". "); i > 0 && strings.Trim(line[:i], "0123456789") == "" {
			line = line[i+2:]
		}
		out = append(out, line)
	}
	return out
}

// textTable writes the table of targets, its last column (the failed
// checks) wrapped to fit TextWidth.
func textTable(b *strings.Builder, res *record.Result, o Options) {
	head := []string{"TARGET", "SCORE"}
	if o.Expected != nil {
		head = append(head, "BUILT FOR")
	}
	head = append(head, "FINDINGS", "FAILED CHECKS")
	rows := [][]string{head}
	for _, t := range res.Targets {
		row := []string{oneLine(t.Name), ScoreLabel(t)}
		if o.Expected != nil {
			exp := "-"
			if e, ok := o.Expected[t.Name]; ok {
				exp = fmt.Sprint(e)
			}
			row = append(row, exp)
		}
		rows = append(rows, append(row, fmt.Sprint(len(t.Findings)), failedChecks(t)))
	}
	last := len(head) - 1
	widths := make([]int, last)
	for _, r := range rows {
		for i := 0; i < last; i++ {
			widths[i] = max(widths[i], width(r[i]))
		}
	}
	// The failed checks need room for the longest check id; a very long
	// target name is cut to leave it.
	const minLast = 24
	start := 0
	for _, w := range widths {
		start += w + 2
	}
	if over := start + minLast - TextWidth; over > 0 {
		widths[0] = max(widths[0]-over, 8)
		start -= over
	}
	for _, r := range rows {
		var line strings.Builder
		for i := 0; i < last; i++ {
			cell := cut(r[i], widths[i])
			line.WriteString(cell + strings.Repeat(" ", widths[i]+2-width(cell)))
		}
		rest := strings.Repeat(" ", start)
		wrapped := Wrap(r[last], line.String(), rest, TextWidth)
		b.WriteString(wrapped)
	}
}

// Wrap fills text into lines of at most width columns (counted in runes),
// breaking at spaces: the first line starts with first, the others with
// rest. A word longer than a line is cut. The result ends with a newline.
func Wrap(text, first, rest string, width int) string {
	var b strings.Builder
	prefix := first
	line := prefix
	empty := true
	for _, w := range strings.Fields(text) {
		for {
			room := width - utf8.RuneCountInString(line)
			if !empty {
				room-- // the space
			}
			n := utf8.RuneCountInString(w)
			if n <= room {
				if !empty {
					line += " "
				}
				line += w
				empty = false
				break
			}
			if !empty {
				b.WriteString(strings.TrimRight(line, " ") + "\n")
				prefix = rest
				line, empty = prefix, true
				continue
			}
			// A word longer than a whole line: cut it.
			room = max(width-utf8.RuneCountInString(line), 1)
			r := []rune(w)
			b.WriteString(line + string(r[:room]) + "\n")
			w = string(r[room:])
			prefix = rest
			line = prefix
		}
	}
	b.WriteString(strings.TrimRight(line, " ") + "\n")
	return b.String()
}

func width(s string) int { return utf8.RuneCountInString(s) }

// cut shortens s to n columns, marking the cut with "…".
func cut(s string, n int) string {
	if width(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// oneLine puts s on one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// plural says n things: "1 target", "2 targets".
func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// The colours of the text report: SGR codes.
const (
	colorBold   = "1"
	colorRed    = "31"
	colorYellow = "33"
	colorGreen  = "32"
	colorCyan   = "36"
)

// paint wraps s in the colour code when Options.Color is set.
func (o Options) paint(code, s string) string {
	if !o.Color || s == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

func (o Options) paintSeverity(s record.Severity, text string) string {
	switch s {
	case record.Critical:
		return o.paint(colorRed, text)
	case record.Major:
		return o.paint(colorYellow, text)
	}
	return o.paint(colorCyan, text)
}

// paintScore colours the "score N" that begins a score's reason.
func (o Options) paintScore(level int, text string) string {
	word := fmt.Sprintf("score %d", level)
	code := colorRed
	switch {
	case level >= 3:
		code = colorGreen
	case level > 0:
		code = colorYellow
	}
	return strings.Replace(text, word, o.paint(code, word), 1)
}

func rank(s record.Severity) int {
	switch s {
	case record.Critical:
		return 3
	case record.Major:
		return 2
	}
	return 1
}

func failedChecks(t record.TargetResult) string {
	var ids []string
	for _, c := range t.Checks {
		if c.Status == record.StatusFail {
			ids = append(ids, c.ID)
		}
	}
	if len(ids) == 0 {
		return "-"
	}
	return strings.Join(ids, ", ")
}
