package reports

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/internal/lazyregexp"
	"github.com/idemcheck/idemcheck/record"
)

// IntentSteps is one intent of a finding's evidence told as steps: its
// minimal counterexample, readable without the raw record.
type IntentSteps struct {
	Intent record.Intent
	// Title names the intent: id, operation, probe, role, key.
	Title string
	Steps []Step
}

// Step is one attempt (or one burst of attempts, or one effect recorded
// outside every attempt) of a counterexample.
type Step struct {
	// Attempts says which attempts: "attempt 2", "attempts 1–20 (burst)";
	// "ledger" for an effect recorded outside every attempt.
	Attempts string
	// At is when the step began, after the first attempt of the finding.
	At      time.Duration
	Fault   string
	Outcome record.Outcome
	// Status is the HTTP status or exit code, or what happened instead.
	Status string
	// EffectField is what the reply said it did.
	EffectField string
	// Effects are the ledger rows of the evidence recorded during the step.
	Effects []string
}

// Counterexample tells f's evidence as steps, intent by intent.
func Counterexample(f record.Finding) []IntentSteps {
	t0 := evidenceStart(f)
	used := map[int64]bool{}
	var out []IntentSteps
	for _, in := range f.Evidence.Intents {
		is := IntentSteps{Intent: in, Title: intentTitle(in)}
		for i := 0; i < len(in.Attempts); i++ {
			a := in.Attempts[i]
			st := Step{Attempts: fmt.Sprintf("attempt %d", a.N), At: sinceOrZero(a.Start, t0), Fault: a.Fault, Outcome: a.Outcome, Status: statusText(a.Reply), EffectField: effectFieldText(a.Reply)}
			lo, hi := a.LedgerBefore, a.LedgerAfter
			if a.Burst {
				// The copies of a burst share one window: tell them as one step.
				j := i
				counts := map[string]int{}
				var order []string
				for j < len(in.Attempts) && in.Attempts[j].Burst {
					s := statusText(in.Attempts[j].Reply)
					if counts[s] == 0 {
						order = append(order, s)
					}
					counts[s]++
					hi = max(hi, in.Attempts[j].LedgerAfter)
					j++
				}
				var parts []string
				for _, s := range order {
					parts = append(parts, fmt.Sprintf("%s ×%d", s, counts[s]))
				}
				st.Attempts = fmt.Sprintf("attempts %d–%d (a burst of %d copies)", a.N, in.Attempts[j-1].N, j-i)
				st.Status = strings.Join(parts, ", ")
				st.Outcome, st.EffectField = "", ""
				i = j - 1
			}
			for _, e := range f.Evidence.Effects {
				if e.Seq > lo && e.Seq <= hi && !used[e.Seq] && e.HasMarker(in.Marker) {
					used[e.Seq] = true
					st.Effects = append(st.Effects, effectText(e))
				}
			}
			is.Steps = append(is.Steps, st)
		}
		out = append(out, is)
	}
	// Effects no attempt's window explains (recorded after the reply, or
	// by a fake that acts on its own) go last, in ledger order.
	var rest []fakes.Effect
	for _, e := range f.Evidence.Effects {
		if !used[e.Seq] {
			rest = append(rest, e)
		}
	}
	if len(rest) > 0 {
		sort.Slice(rest, func(i, j int) bool { return rest[i].Seq < rest[j].Seq })
		is := IntentSteps{Title: "effects recorded outside every attempt's window"}
		for _, e := range rest {
			is.Steps = append(is.Steps, Step{Attempts: "ledger", At: sinceOrZero(e.At, t0), Effects: []string{effectText(e)}})
		}
		out = append(out, is)
	}
	return out
}

// evidenceStart is when the evidence's first attempt began.
func evidenceStart(f record.Finding) time.Time {
	var t0 time.Time
	for _, in := range f.Evidence.Intents {
		for _, a := range in.Attempts {
			if !a.Start.IsZero() && (t0.IsZero() || a.Start.Before(t0)) {
				t0 = a.Start
			}
		}
	}
	return t0
}

func sinceOrZero(t, t0 time.Time) time.Duration {
	if t.IsZero() || t0.IsZero() {
		return 0
	}
	return t.Sub(t0)
}

func intentTitle(in record.Intent) string {
	s := fmt.Sprintf("intent %d: %s, %s (%s)", in.ID, in.Operation, in.Probe, in.Role)
	if in.Key != "" {
		s += ", key " + in.Key
	} else {
		s += ", no key"
	}
	if in.Related != 0 {
		s += fmt.Sprintf(", related to intent %d", in.Related)
	}
	return s
}

// statusText is the reply's status, or what happened instead of one.
func statusText(r record.Reply) string {
	switch {
	case r.Status != 0 && r.Withheld:
		return fmt.Sprintf("%d (the target's reply was withheld)", r.Status)
	case r.Status != 0:
		return fmt.Sprint(r.Status)
	case r.ExitSignal != "":
		return "killed by " + r.ExitSignal
	case r.Error != "":
		return "no reply: " + short(r.Error, 80)
	case !r.Forwarded:
		return "not sent"
	}
	return "no reply"
}

func effectFieldText(r record.Reply) string {
	switch {
	case r.HasEffect:
		return fmt.Sprintf("effect %q", r.Effect)
	case r.Outcome == record.OK:
		return "no effect field"
	}
	return ""
}

func effectText(e fakes.Effect) string {
	s := fmt.Sprintf("%s %s %s", e.Fake, e.Kind, e.ID)
	if e.Key != "" {
		s += " (downstream key " + e.Key + ")"
	}
	return s
}

// String tells the step on one line.
func (st Step) String() string {
	parts := []string{st.Attempts, "+" + fmtDur(st.At)}
	if st.Fault != "" {
		parts = append(parts, "fault "+st.Fault)
	}
	if st.Status != "" {
		s := st.Status
		if st.Outcome != "" {
			s += " (" + string(st.Outcome) + ")"
		}
		parts = append(parts, s)
	}
	if st.EffectField != "" {
		parts = append(parts, st.EffectField)
	}
	switch {
	case len(st.Effects) > 0:
		parts = append(parts, "recorded: "+strings.Join(st.Effects, ", "))
	case st.Attempts != "ledger":
		parts = append(parts, "nothing recorded")
	}
	return strings.Join(parts, " · ")
}

// stepsText tells f's counterexample as indented lines.
func stepsText(f record.Finding, indent string) string {
	var b strings.Builder
	for _, is := range Counterexample(f) {
		fmt.Fprintf(&b, "%s%s\n", indent, is.Title)
		for _, st := range is.Steps {
			fmt.Fprintf(&b, "%s  %s\n", indent, st)
		}
	}
	return b.String()
}

func short(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// summaryMin is the length from which Summarise rewrites a list of
// effects of one kind ("4 charges: …"), and summaryWhole the longest it
// still tells whole (a list of six or more ids is idList's).
const (
	summaryMin   = 4
	summaryWhole = 5
)

// effectList matches a list of at least summaryMin effects as the checks
// write them: "charge ch_000003, charge ch_000004, …".
var effectList = lazyregexp.New(`\b[a-z][a-z_-]* [A-Za-z0-9_.:-]*[0-9][A-Za-z0-9_.:-]*(?:, [a-z][a-z_-]* [A-Za-z0-9_.:-]*[0-9][A-Za-z0-9_.:-]*){` + strconv.Itoa(summaryMin-1) + `,}`)

// idList matches a list of at least summaryMin+2 ids: "ord_000002×1,
// ord_000003×1, …".
var idList = lazyregexp.New(`\b[A-Za-z0-9_.:-]*[0-9][A-Za-z0-9_.:×-]*(?:, [A-Za-z0-9_.:-]*[0-9][A-Za-z0-9_.:×-]*){` + strconv.Itoa(summaryMin+1) + `,}`)

// countBefore matches "20 effects: " or "20 effects (" just before a list.
var countBefore = lazyregexp.New(`(\d+) effects?(?:: | \()$`)

// Summarise shortens the long lists of evidence a finding's message may
// carry, for the text report (the JSON and HTML reports keep them whole):
// twenty charges become "20 charges: ch_000013, ch_000014, …,
// ch_000032" (five or fewer are told whole, after their count), a list of
// ids "ord_000002, ord_000003, …, ord_000019 (18 in all)", and a run of
// the same status "409 ×8".
func Summarise(msg string) string {
	msg = effectList.ReplaceAllStringFunc(msg, func(list string) string {
		items := strings.Split(list, ", ")
		kind, _, _ := strings.Cut(items[0], " ")
		var ids []string
		for _, it := range items {
			k, id, _ := strings.Cut(it, " ")
			if k != kind {
				return list // mixed kinds: told whole
			}
			ids = append(ids, id)
		}
		// \x00 marks the summary for the pass below (Clean has made every
		// NUL of the message visible text). A few are told whole: "344 …
		// 345" of four reads as two.
		if len(ids) <= summaryWhole {
			return fmt.Sprintf("\x00%d %s: %s", len(ids), pluralNoun(kind), strings.Join(ids, ", "))
		}
		return fmt.Sprintf("\x00%d %s: %s, %s, …, %s", len(ids), pluralNoun(kind), ids[0], ids[1], ids[len(ids)-1])
	})
	// "caused 20 effects: \x0020 charges: …" says the count once.
	for {
		i := strings.IndexByte(msg, 0)
		if i < 0 {
			break
		}
		before, after := msg[:i], msg[i+1:]
		if m := countBefore.FindStringSubmatchIndex(before); m != nil && strings.HasPrefix(after, before[m[2]:m[3]]+" ") {
			phrase, rest, _ := strings.Cut(after, ": ") // "20 charges", "a … b"
			if strings.HasSuffix(before, "(") {
				before, after = before[:m[0]]+phrase+" (", rest
			} else {
				before = before[:m[0]]
			}
		}
		msg = before + after
	}
	msg = collapseRuns(msg)
	return idList.ReplaceAllStringFunc(msg, func(list string) string {
		items := strings.Split(list, ", ")
		return fmt.Sprintf("%s, %s, …, %s (%d in all)", items[0], items[1], items[len(items)-1], len(items))
	})
}

// pluralNoun is the plural of an effect's kind: charge → charges,
// delivery → deliveries.
func pluralNoun(s string) string {
	switch {
	case strings.HasSuffix(s, "y") && !strings.HasSuffix(s, "ey") && !strings.HasSuffix(s, "ay"):
		return s[:len(s)-1] + "ies"
	case strings.HasSuffix(s, "s"), strings.HasSuffix(s, "sh"), strings.HasSuffix(s, "ch"), strings.HasSuffix(s, "x"):
		return s + "es"
	}
	return s + "s"
}

// collapseRuns writes a run of three or more equal items of a
// comma-separated list once, with its count: "409, 409, 409)" becomes
// "409 ×3)".
func collapseRuns(msg string) string {
	parts := strings.Split(msg, ", ")
	if len(parts) < 3 {
		return msg
	}
	var out []string
	for i := 0; i < len(parts); {
		w := lastWord(parts[i])
		j := i + 1
		for w != "" && j < len(parts) && parts[j] == w {
			j++
		}
		// The run may end in an item that carries the text after the list.
		end := j
		if w != "" && j < len(parts) && firstWord(parts[j]) == w {
			end = j + 1
		}
		if n := end - i; w != "" && n >= 3 {
			joined := strings.TrimSuffix(parts[i], w) + fmt.Sprintf("%s ×%d", w, n)
			if end > j {
				joined += strings.TrimPrefix(parts[j], w)
			}
			out = append(out, joined)
			i = end
			continue
		}
		out = append(out, parts[i])
		i++
	}
	return strings.Join(out, ", ")
}

// lastWord is the word s ends with (letters, digits, _ . -), "" if none.
func lastWord(s string) string {
	i := len(s)
	for i > 0 && isWordByte(s[i-1]) {
		i--
	}
	return s[i:]
}

// firstWord is the word s begins with.
func firstWord(s string) string {
	i := 0
	for i < len(s) && isWordByte(s[i]) {
		i++
	}
	return s[:i]
}

func isWordByte(c byte) bool {
	return c == '_' || c == '.' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// operationLabel is the operation to name beside f's check, "" when f's
// message already begins with it ("create-order: …"), so that a line
// never says it twice.
func operationLabel(f record.Finding) string {
	if op := f.Operation; op != "" && !strings.HasPrefix(f.Message, op+":") && !strings.HasPrefix(f.Message, op+" ") {
		return op
	}
	return ""
}

// numbered joins steps as a numbered list, one per line.
func numbered(steps []string) string {
	var b strings.Builder
	for i, s := range steps {
		fmt.Fprintf(&b, "%d. %s\n", i+1, s)
	}
	return b.String()
}

// trialFailed reports whether t's failing generated trial failed check.
func trialFailed(t record.TargetResult, check string) bool {
	if t.Scenario == nil || len(TrialSteps(t)) == 0 {
		return false
	}
	for _, f := range t.Scenario.Findings {
		if f.Check == check {
			return true
		}
	}
	for _, f := range t.Findings {
		if f.Trial && f.Check == check {
			return true
		}
	}
	return false
}

// trialBlock is t's failing generated trial as plain text for the JUnit
// report: a heading and the numbered steps; "" when no trial failed.
func trialBlock(t record.TargetResult) string {
	steps := TrialSteps(t)
	if len(steps) == 0 {
		return ""
	}
	head := "\n\na generated trial failed; its minimal counterexample"
	if rate := t.Scenario.Rate(); rate != "" {
		head += " (" + rate + ")"
	}
	return head + ":\n" + numbered(steps)
}

// mdTrial is t's failing generated trial as a Markdown numbered list;
// "" when no trial failed.
func mdTrial(t record.TargetResult) string {
	steps := TrialSteps(t)
	if len(steps) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\nA generated trial failed")
	if ids := trialChecks(t.Scenario); len(ids) > 0 {
		codes := make([]string, len(ids))
		for i, id := range ids {
			codes[i] = mdCode(id)
		}
		b.WriteString(" (" + strings.Join(codes, ", ") + ")")
	}
	b.WriteString("; its minimal counterexample")
	if rate := t.Scenario.Rate(); rate != "" {
		b.WriteString(" (" + mdText(rate) + ")")
	}
	b.WriteString(":\n\n")
	for i, s := range steps {
		fmt.Fprintf(&b, "%d. %s\n", i+1, mdLine(s))
	}
	return b.String()
}
