package reports

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/harness"
)

// IntentSteps is one intent of a finding's evidence told as steps: its
// minimal counterexample, readable without the raw record.
type IntentSteps struct {
	Intent harness.Intent
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
	Outcome harness.Outcome
	// Status is the HTTP status or exit code, or what happened instead.
	Status string
	// EffectField is what the reply said it did.
	EffectField string
	// Effects are the ledger rows of the evidence recorded during the step.
	Effects []string
}

// Counterexample tells f's evidence as steps, intent by intent.
func Counterexample(f harness.Finding) []IntentSteps {
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
func evidenceStart(f harness.Finding) time.Time {
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

func intentTitle(in harness.Intent) string {
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
func statusText(r harness.Reply) string {
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

func effectFieldText(r harness.Reply) string {
	switch {
	case r.HasEffect:
		return fmt.Sprintf("effect %q", r.Effect)
	case r.Outcome == harness.OK:
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
func stepsText(f harness.Finding, indent string) string {
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
