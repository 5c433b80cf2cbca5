package reports_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/record"
	"github.com/idemcheck/idemcheck/reports"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// fixture is a real run's raw result (3 reference targets of the shop,
// three faults, seed 3: a lost effect, a silent key reuse, unstable
// replays), plus a target the harness could not start, added by hand.
func fixture(t *testing.T) *record.Result {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "result.json"))
	require.NoError(t, err)
	var res record.Result
	require.NoError(t, json.Unmarshal(b, &res))
	return &res
}

func render(t *testing.T, name string, res *record.Result, o reports.Options) string {
	t.Helper()
	f, ok := reports.LookupFormat(name)
	require.True(t, ok, name)
	var b bytes.Buffer
	require.NoError(t, f.Render(&b, res, o))
	return b.String()
}

// TestGolden pins every machine-readable format (and the text and
// Markdown ones, so that a change to them is seen in review). A change to
// report.golden.json is a change of the idemcheck.report/v1 contract: it
// may only add fields, and schema/report.v1.json must say so.
// go test ./reports -run Golden -update rewrites them.
func TestGolden(t *testing.T) {
	res := fixture(t)
	for _, tc := range []struct{ format, file string }{
		{"json", "report.golden.json"},
		{"junit", "report.golden.xml"},
		{"md", "report.golden.md"},
		{"text", "report.golden.txt"},
	} {
		t.Run(tc.format, func(t *testing.T) {
			got := render(t, tc.format, res, reports.Options{MinScore: 1})
			path := filepath.Join("testdata", tc.file)
			if *update {
				require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "run with -update to create it")
			assert.Equal(t, string(want), got)
		})
	}
}

// TestJSONKeepsTheV1Fields decodes the report generically and checks that
// every field v1 started with is still there, with its type: the contract
// only grows.
func TestJSONKeepsTheV1Fields(t *testing.T) {
	var rep map[string]any
	require.NoError(t, json.Unmarshal([]byte(render(t, "json", fixture(t), reports.Options{})), &rep))
	assert.Equal(t, reports.ReportSchema, rep["schema"])
	assert.EqualValues(t, 3, rep["seed"])
	targets := rep["targets"].([]any)
	require.Len(t, targets, 4)
	for _, x := range targets {
		tr := x.(map[string]any)
		for _, k := range []string{"name", "kind", "score", "score_reason", "checks", "findings", "summary"} {
			assert.Contains(t, tr, k)
		}
		sum := tr["summary"].(map[string]any)
		for _, k := range []string{"intents", "attempts", "effects", "duration_ms"} {
			assert.Contains(t, sum, k)
		}
	}
	down := targets[3].(map[string]any)
	assert.EqualValues(t, -1, down["score"], "an untested target scores -1")
	assert.Contains(t, down["error"], "cannot open database")
	first := targets[0].(map[string]any)["findings"].([]any)[0].(map[string]any)
	for _, k := range []string{"check", "severity", "operation", "fault", "message", "evidence", "replay"} {
		assert.Contains(t, first, k)
	}
	assert.Equal(t, "idemcheck run -c idemcheck.yaml --seed 3 --only exactly-once --target mark-first", first["replay"], "of a run of several targets, its own")
	assert.Equal(t, "idemcheck run -c idemcheck.yaml --seed 3", rep["replay"])
	meta := rep["meta"].(map[string]any)
	assert.Equal(t, "run", meta["command"])
	assert.Regexp(t, `^[0-9a-f]{64}$`, meta["config_digest"])
}

func TestReplayCommands(t *testing.T) {
	f := record.Finding{Check: "exactly-once"}
	cases := []struct {
		why      string
		meta     record.Meta
		run, one string
	}{
		{"a run repeats with its configuration and seed, a finding with --only its check",
			record.Meta{Command: "run", Config: "idemcheck.yaml"},
			"idemcheck run -c idemcheck.yaml --seed 9", "idemcheck run -c idemcheck.yaml --seed 9 --only exactly-once"},
		{"a path a shell would split is quoted",
			record.Meta{Command: "run", Config: "my dir/it's.yaml"},
			`idemcheck run -c 'my dir/it'\''s.yaml' --seed 9`, `idemcheck run -c 'my dir/it'\''s.yaml' --seed 9 --only exactly-once`},
		{"the demo has no --only: its findings replay with the whole demo",
			record.Meta{Command: "demo"}, "idemcheck demo --seed 9", "idemcheck demo --seed 9"},
		{"a run made from Go code has no command to give",
			record.Meta{}, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.why, func(t *testing.T) {
			res := &record.Result{Seed: 9, Meta: tc.meta}
			assert.Equal(t, tc.run, reports.RunCommand(res))
			assert.Equal(t, tc.one, reports.ReplayCommand(res, f))
		})
	}
}

func TestMarkdown(t *testing.T) {
	md := render(t, "md", fixture(t), reports.Options{MinScore: 2})
	assert.Contains(t, md, "**ERROR**: the harness could not test down.")
	assert.Contains(t, md, "| mark-first | http | **score 0/3** (fails the gate: a critical finding (exactly-once create-order \\[downstream-503\\])) | 2 | exactly-once |")
	assert.Contains(t, md, "| unstable-replay | http | **score 1/3** (fails the gate: score 1, below --min-score 2) |")
	assert.Contains(t, md, "| mismatch | http | **score 2/3** | 1 | key.mismatch |")
	assert.Contains(t, md, "| down | http | **not scored** |")
	assert.Contains(t, md, "| `exactly-once` | FAIL | 2 finding(s) |")
	assert.Contains(t, md, "   idemcheck run -c idemcheck.yaml --seed 3 --only exactly-once --target mark-first\n")
	assert.NotRegexp(t, `[\x{1F300}-\x{1FAFF}\x{2600}-\x{27BF}]`, md, "no emoji")
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "| ") {
			cells := strings.Count(strings.ReplaceAll(line, `\|`, ""), "|") - 1
			assert.Contains(t, []int{3, 5}, cells, "a row of the targets (5 cells) or checks (3 cells) table: %s", line)
		}
	}
}

func TestMarkdownPassesWhenEveryTargetMeetsTheGate(t *testing.T) {
	res := fixture(t)
	res.Targets = res.Targets[1:2] // mismatch: score 2, a minor finding
	md := render(t, "md", res, reports.Options{MinScore: 2})
	assert.Contains(t, md, "**PASS**: every target met --min-score 2 and no finding is critical.")
}

var externalRef = regexp.MustCompile(`(?i)(src|href|xlink:href|action)\s*=\s*["']?\s*(https?:|//)|@import|url\(\s*["']?(https?:|//)`)

func TestHTMLIsSelfContained(t *testing.T) {
	page := render(t, "html", fixture(t), reports.Options{MinScore: 1})
	assert.NotRegexp(t, externalRef, page, "the page must fetch nothing")
	assert.Contains(t, page, `http-equiv="Content-Security-Policy" content="default-src 'none';`)
	assert.Equal(t, 4, strings.Count(page, `<section class="card target"`), "a section per target")
	assert.Equal(t, 3, strings.Count(page, `<table class="matrix">`), "a matrix per tested target")
	assert.Equal(t, 5, strings.Count(page, `<svg class="timeline"`), "a timeline per finding")
	assert.Contains(t, page, `data-score="0/3"`)
	assert.Contains(t, page, "Could not be tested: the target exited before it was ready")
	assert.Contains(t, page, "idemcheck run -c idemcheck.yaml --seed 3 --only exactly-once")
}

func TestFormatsAreListedOnce(t *testing.T) {
	files := map[string]bool{}
	for _, f := range reports.Formats() {
		assert.False(t, files[f.File], "two formats write %s", f.File)
		files[f.File] = true
		assert.NotEqual(t, "result.json", f.File, "result.json is the raw result")
	}
	assert.Equal(t, "text, json, junit, md, html", reports.FormatNames())
}

func TestHTMLShowsATrialsCounterexample(t *testing.T) {
	res := fixture(t)
	tr := &res.Targets[0]
	tr.Findings[0].Trial, tr.Findings[0].Flaky = true, true
	tr.Scenario = &record.ScenarioResult{Trials: 12, Steps: "1. create-order key A under lost-response\n2. create-order key A"}
	page := render(t, "html", res, reports.Options{})
	assert.Contains(t, page, "Generated trial, shrunk to its minimal counterexample")
	assert.Contains(t, page, "1. create-order key A under lost-response\n2. create-order key A")
	assert.Contains(t, page, `<span class="tag">flaky</span>`)
	assert.Equal(t, 12, reports.Build(res).Targets[0].Summary.Trials)
	assert.Equal(t, 12, reports.Build(res).Summary.Trials)
}

// TestEveryFormatCarriesTheTrialAndItsRate: the minimal counterexample's
// steps, an overlap among them included, and how often it failed again
// reach the JSON, text, Markdown and JUnit reports.
func TestEveryFormatCarriesTheTrialAndItsRate(t *testing.T) {
	res := fixture(t)
	tr := &res.Targets[0]
	tr.Findings[0].Trial = true
	tr.Scenario = &record.ScenarioResult{Trials: 40, Replays: 3, Reproduced: 2, Findings: []record.Finding{tr.Findings[0]},
		Steps: "1. create-order with a fresh key retrying until done\n2. at the same time as step 1: create-order with a fresh key retrying until done"}
	rep := reports.Build(res).Targets[0]
	require.NotNil(t, rep.Trial)
	assert.Equal(t, []string{"create-order with a fresh key retrying until done", "at the same time as step 1: create-order with a fresh key retrying until done"}, rep.Trial.Steps)
	assert.Equal(t, 3, rep.Trial.Replays)
	assert.Equal(t, 2, rep.Trial.Reproduced)
	assert.False(t, rep.Trial.Flaky)
	assert.Equal(t, []string{tr.Findings[0].Check}, rep.Trial.Checks)
	for _, format := range []string{"text", "md", "junit"} {
		out := render(t, format, res, reports.Options{})
		assert.Contains(t, out, "failed again in 2 of 3 replays", format)
		assert.Contains(t, out, "at the same time as step 1", format)
	}
	assert.Nil(t, reports.Build(fixture(t)).Targets[0].Trial, "no trial object when no trial failed")
}

// TestEveryFormatSaysHowEffectsWereAttributed: what the observers saw,
// attribution by delta and what the run left out for it are in every
// format for people as in the JSON; a target counted by the fakes alone
// says nothing of them.
func TestEveryFormatSaysHowEffectsWereAttributed(t *testing.T) {
	plain := fixture(t)
	for _, format := range []string{"text", "md", "html", "json"} {
		out := render(t, format, plain, reports.Options{})
		for _, s := range []string{"observed: ", "attributed by delta", "not run: ", "not_run"} {
			assert.False(t, strings.Contains(out, s), "%s says %q", format, s)
		}
	}

	res := fixture(t)
	why := "effects are attributed by delta (observer ledger-db): intents run one at a time"
	res.Targets[0].Record.Observers = []string{"ledger-db (count) saw a change for 21 of the 23 intents (attributed by delta)"}
	res.Targets[0].Record.Attribution = record.AttributionDelta
	res.Targets[0].Record.NotRun = map[string]string{
		"reordered delivery":          why,
		"concurrent distinct intents": why,
		"trial workers":               why + "; one trial at a time",
	}
	for _, format := range []string{"text", "md", "html"} {
		out := strings.Join(strings.Fields(render(t, format, res, reports.Options{})), " ")
		for _, s := range []string{
			"observed: ledger-db (count) saw a change for 21 of the 23 intents",
			"attributed by delta: the change an observer saw after each attempt was given to the intent in flight",
			"not run: concurrent distinct intents, reordered delivery (effects are attributed by delta (observer ledger-db)",
			"not run: trial workers (effects",
		} {
			assert.True(t, strings.Contains(out, s), "%s does not say %q", format, s)
		}
	}
	rep := reports.Build(res).Targets[0]
	assert.Equal(t, record.AttributionDelta, rep.Attribution)
	assert.Len(t, rep.NotRun, 3)
	assert.Len(t, rep.Observers, 1)
}

// A finding whose evidence a probe of another check made (effect.field on
// an intent retried after a fault) replays with that check too; evidence
// its own check planned needs nothing more.
func TestReplayCommandNamesTheChecksThatMadeTheEvidence(t *testing.T) {
	res := &record.Result{Seed: 1, Meta: record.Meta{Command: "run", Config: "idemcheck.yaml"}}
	byFault := record.Intent{ID: 21, Probe: "retry after client-disconnect", PlannedFor: []string{"retry.after-fault"}}
	own := record.Intent{ID: 2, Probe: "sequential retry", PlannedFor: []string{"retry.sequential", "effect.field"}}
	trial := record.Intent{ID: 900, Probe: "trial 3"}
	f := record.Finding{Check: "effect.field", Evidence: record.Evidence{Intents: []record.Intent{byFault, own, trial, byFault}}}
	assert.Equal(t, "idemcheck run -c idemcheck.yaml --seed 1 --only effect.field,retry.after-fault", reports.ReplayCommand(res, f))
	f.Evidence.Intents = []record.Intent{own}
	assert.Equal(t, "idemcheck run -c idemcheck.yaml --seed 1 --only effect.field", reports.ReplayCommand(res, f))
}

// A fault armed at a later downstream call needs a clean run of the
// operation to know its calls: the replay names retry.sequential too.
func TestReplayCommandOfALaterPointHasACleanRun(t *testing.T) {
	res := &record.Result{Seed: 1, Meta: record.Meta{Command: "run", Config: "idemcheck.yaml"}}
	in := record.Intent{ID: 40, Probe: "retry after downstream-503-after at email #1", PlannedFor: []string{"downstream.propagation"},
		Attempts: []record.Attempt{{N: 1, Fault: "downstream-503-after", Point: &record.EffectPoint{Index: 2, Fake: "email", N: 1}}}}
	f := record.Finding{Check: "downstream.propagation", Evidence: record.Evidence{Intents: []record.Intent{in}}}
	assert.Equal(t, "idemcheck run -c idemcheck.yaml --seed 1 --only downstream.propagation,retry.sequential", reports.ReplayCommand(res, f))
	in.Attempts[0].Point.Index = 1
	f.Evidence.Intents = []record.Intent{in}
	assert.Equal(t, "idemcheck run -c idemcheck.yaml --seed 1 --only downstream.propagation", reports.ReplayCommand(res, f))
}
