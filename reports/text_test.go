package reports_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/record"
	"github.com/idemcheck/idemcheck/reports"
	"github.com/idemcheck/idemcheck/scenarios"
)

func charges(from, to int) string {
	var ids []string
	for i := from; i <= to; i++ {
		ids = append(ids, "charge ch_"+strings.Repeat("0", 6-len(itoa(i)))+itoa(i))
	}
	return strings.Join(ids, ", ")
}

func itoa(i int) string {
	s := ""
	for {
		s = string(rune('0'+i%10)) + s
		i /= 10
		if i == 0 {
			return s
		}
	}
}

// TestSummarise: each row is a shape of list the checks write.
func TestSummarise(t *testing.T) {
	for _, tc := range []struct{ why, in, want string }{
		{"a burst's effects, counted once",
			"create-order: duplicated in 10 of 10 bursts (199 effects in all; the worst burst caused 20 effects: " + charges(3, 22) + "): the key is checked and claimed in two steps",
			"create-order: duplicated in 10 of 10 bursts (199 effects in all; the worst burst caused 20 charges: ch_000003, ch_000004, …, ch_000022): the key is checked and claimed in two steps"},
		{"effects in parentheses",
			"the same key sent 5 times caused 5 effects (" + charges(1, 5) + "): the key is not honoured",
			"the same key sent 5 times caused 5 charges (ch_000001, ch_000002, ch_000003, ch_000004, ch_000005): the key is not honoured"},
		{"a short list is told whole",
			"caused 2 effects (" + charges(1, 2) + "); attempts: 200",
			"caused 2 effects (" + charges(1, 2) + "); attempts: 200"},
		{"a list with no count before it",
			"recorded " + charges(10, 13) + " after the reply",
			"recorded 4 charges: ch_000010, ch_000011, ch_000012, ch_000013 after the reply"},
		{"mixed kinds are told whole",
			"caused charge ch_1, email em_2, charge ch_3, email em_4",
			"caused charge ch_1, email em_2, charge ch_3, email em_4"},
		{"a run of one status",
			"9 attempts never succeeded (info (client-disconnect), 409, 409, 409, 409, 409, 409, 409, 409): the intent cannot be completed",
			"9 attempts never succeeded (info (client-disconnect), 409 ×8): the intent cannot be completed"},
		{"two equal statuses are told whole",
			"attempts: 502 (crash-after-effect), 200, 200",
			"attempts: 502 (crash-after-effect), 200, 200"},
		{"a long list of results",
			"answered as 8 different results (ord_000002×1, ord_000003×1, ord_000004×1, ord_000005×1, ord_000006×1, ord_000007×1, ord_000008×1, ord_000009×1)",
			"answered as 8 different results (ord_000002×1, ord_000003×1, …, ord_000009×1 (8 in all))"},
		{"prose is left alone",
			"level 3 needs that idempotency is enforced at framework level (key required, a reused key with another payload rejected)",
			"level 3 needs that idempotency is enforced at framework level (key required, a reused key with another payload rejected)"},
		{"deliveries",
			"caused delivery d1, delivery d2, delivery d3, delivery d4",
			"caused 4 deliveries: d1, d2, d3, d4"},
	} {
		t.Run(tc.why, func(t *testing.T) {
			assert.Equal(t, tc.want, reports.Summarise(tc.in))
		})
	}
}

func TestWrap(t *testing.T) {
	got := reports.Wrap("one two three four five six seven", "  ", "    ", 14)
	assert.Equal(t, "  one two\n    three four\n    five six\n    seven\n", got)
	got = reports.Wrap("abcdefghijklmnopqrstuvwxyz", "- ", "  ", 10)
	for _, l := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
		assert.LessOrEqual(t, len(l), 10, l)
	}
	assert.Equal(t, "abcdefghijklmnopqrstuvwxyz", strings.NewReplacer("\n", "", " ", "", "-", "").Replace(got))
}

// withTrial gives the fixture's first target a failing generated trial
// whose minimal counterexample restarts the target; the trial's finding is
// not among the target's findings (the probes had found it already), so
// every format must show the counterexample on its own.
func withTrial(t *testing.T) *record.Result {
	res := fixture(t)
	tr := &res.Targets[0]
	tr.Scenario = &record.ScenarioResult{
		Trials: 25,
		Counterexample: &scenarios.Trial{Steps: []scenarios.Step{
			{Op: "create-order", Key: scenarios.Fresh, Fault: "lost-response"},
			{Op: "create-order", Key: scenarios.Again, Of: 0, Restart: true},
		}},
		Findings: []record.Finding{{Check: "exactly-once", Severity: record.Critical, Operation: "create-order", Message: "create-order: lost"}},
	}
	return res
}

func TestEveryFormatCarriesTheTrialsCounterexample(t *testing.T) {
	res := withTrial(t)
	step2 := "create-order again with the key and payload of step 1"
	for _, format := range []string{"text", "md", "junit", "html"} {
		t.Run(format, func(t *testing.T) {
			out := render(t, format, res, reports.Options{})
			flat := strings.Join(strings.Fields(out), " ")
			assert.Contains(t, flat, "1. create-order with a fresh key under lost-response")
			assert.Contains(t, flat, "2. restart the target, then "+step2)
		})
	}
	// A target without a failing trial says nothing of trials.
	text := render(t, "text", fixture(t), reports.Options{})
	assert.NotContains(t, text, "generated trial")
}

func TestJUnitPutsTheCounterexampleInTheFailureOfItsCheck(t *testing.T) {
	xml := render(t, "junit", withTrial(t), reports.Options{})
	i := strings.Index(xml, `<testcase name="exactly-once" classname="idemcheck.mark-first"`)
	require.Positive(t, i)
	end := strings.Index(xml[i:], "</testcase>")
	assert.Contains(t, xml[i:i+end], "restart the target, then create-order again")
}

// TestTextFitsEightyColumns renders the fixture, with a trial and a long
// burst added, and checks every line's width in runes.
func TestTextFitsEightyColumns(t *testing.T) {
	res := withTrial(t)
	long := &res.Targets[1]
	long.Name = "a-target-whose-name-is-much-longer-than-any-column-should-be"
	long.Findings[0].Message = "create-order: duplicated in 10 of 10 bursts of 20 same-key requests released together (199 effects in all; the worst burst caused 20 effects: " + charges(3, 22) + "): the key is checked and claimed in two steps; claim it atomically"
	text := render(t, "text", res, reports.Options{Expected: map[string]int{"mark-first": 0}})
	assertFits(t, text)
	assert.Contains(t, text, "20 charges: ch_000003, ch_000004, …, ch_000022")
	assert.NotContains(t, text, "ch_000005", "a long list is summarised")
	assert.Contains(t, text, "idemcheck: 4 targets,")
	json := render(t, "json", res, reports.Options{})
	assert.Contains(t, json, "ch_000004", "the JSON report keeps the whole list")
}

// TestTextSaysEachThingOnce: the finding that blocks the next level is
// marked, not repeated on a line of its own.
func TestTextSaysEachThingOnce(t *testing.T) {
	text := render(t, "text", fixture(t), reports.Options{})
	lines := strings.Split(text, "\n")
	seen := map[string]bool{}
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" || l == "replay:" { // the label of a command too long for its line
			continue
		}
		assert.False(t, seen[l], "said twice: %q", l)
		seen[l] = true
	}
	assert.NotContains(t, text, "blocked by")
	assert.Contains(t, text, "critical exactly-once [downstream-503] (blocks level 1): create-order:")
	assert.NotContains(t, text, "create-order: create-order")
	assert.NotContains(t, text, "(s)")
}

func TestTextColoursOnlyWhenAsked(t *testing.T) {
	plain := render(t, "text", fixture(t), reports.Options{})
	assert.NotContains(t, plain, "\x1b[")
	colour := render(t, "text", fixture(t), reports.Options{Color: true})
	assert.Contains(t, colour, "\x1b[31mcritical\x1b[0m")
	assert.Contains(t, colour, "\x1b[33mscore 2\x1b[0m")
}

func assertFits(t *testing.T, text string) {
	t.Helper()
	for i, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "idemcheck ") && strings.HasPrefix(l, "      ") {
			continue // a command on a line of its own is never wrapped, so that it can be copied whole
		}
		assert.LessOrEqual(t, utf8.RuneCountInString(l), reports.TextWidth, "line %d: %q", i+1, l)
	}
}

// TestTextSaysWhatWasNotExaminedOnce: the text report lists what was not
// examined that could lower the score under it, each with its reason, and
// its score reason points there rather than say the same again.
func TestTextSaysWhatWasNotExaminedOnce(t *testing.T) {
	t.Parallel()
	const why = "a remote target takes only what a client can do: idemcheck cannot kill it"
	res := &record.Result{Seed: 1, Targets: []record.TargetResult{{
		Name: "sandbox", Kind: "http",
		Score: record.ScoreResult{Level: 3, Reason: "score 3: every level's condition holds — " + checks.LimitsLead +
			"crash.recovery (under crash-after-reply) not examined: " + why},
		NotExamined: []record.Unexamined{{Check: "crash.recovery", Fault: "crash-after-reply", Cause: record.CauseUnsupported, Reason: why}},
	}}}
	var b strings.Builder
	require.NoError(t, reports.Text(&b, res, reports.Options{}))
	flat := strings.Join(strings.Fields(b.String()), " ")
	assert.Equal(t, 1, strings.Count(flat, why), "said once: %s", b.String())
	assert.Contains(t, flat, "score 3: every level's condition holds — what was not examined could lower it (listed below)")
	assert.Contains(t, flat, "crash.recovery under crash-after-reply not examined: "+why)

	res.Targets[0].NotExamined = nil // a reason the list does not repeat stays whole
	b.Reset()
	require.NoError(t, reports.Text(&b, res, reports.Options{}))
	assert.Contains(t, strings.Join(strings.Fields(b.String()), " "), checks.LimitsLead+"crash.recovery")
}
