package main

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/record"
	"github.com/idemcheck/idemcheck/reports"
	"github.com/idemcheck/idemcheck/reports/schema"
)

// junitCounts reads the failures and errors of the JUnit report at path.
func junitCounts(t *testing.T, path string) (failures, errs int) {
	t.Helper()
	var doc struct {
		Failures int `xml:"failures,attr"`
		Errors   int `xml:"errors,attr"`
	}
	require.NoError(t, xml.Unmarshal([]byte(readFile(t, path)), &doc))
	return doc.Failures, doc.Errors
}

// requireJUnitAgrees checks the JUnit report under dir against the exit
// code: exit 1 exactly when it has a failure, and exit 0 with none.
func requireJUnitAgrees(t *testing.T, code int, dir string) {
	t.Helper()
	failures, errs := junitCounts(t, filepath.Join(dir, "report.xml"))
	switch code {
	case exitOK:
		assert.Zero(t, failures+errs, "exit 0: no failure and no error in report.xml")
	case exitBelow:
		assert.Positive(t, failures, "exit 1: a failure in report.xml")
		assert.Zero(t, errs)
	}
}

// readResult reads the result.json under dir.
func readResult(t *testing.T, dir string) *record.Result {
	t.Helper()
	res, err := record.ReadResultFile(filepath.Join(dir, record.ResultFile))
	require.NoError(t, err)
	return res
}

// TestDefaultGate: a 1/3 target (replies that hide their effect) fails the
// default gate, with a failing score case in the JUnit report and FAIL in
// the Markdown; lowering --min-score passes it, and the XML agrees with the
// exit code each time.
func TestDefaultGate(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	// noeffect forgets no key with time: the late retries come at once.
	cfg := writeConfigWith(t, "retry: {late_delay: 1ms}\n", "noeffect")
	for _, tc := range []struct {
		why    string
		args   []string
		code   int
		met    bool
		min    int
		reason string
	}{
		{"the default gate is 3", nil, exitBelow, false, 3, "noeffect: score 1, below --min-score 3"},
		{"--min-score 1 lowers it", []string{"--min-score", "1"}, exitOK, true, 1, "every target met --min-score 1 and no finding is critical"},
		{"--min-score 0 gates only on critical findings", []string{"--min-score", "0"}, exitOK, true, 0, "no finding is critical (--min-score 0 gates on nothing else)"},
	} {
		t.Run(tc.why, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"run", "-c", cfg, "--trials", "0", "--seed", "6", "--format", "json,junit,md,text,html", "--out", dir}, tc.args...)
			code, out, errs := runCLI(t, ctx, args...)
			require.Equal(t, tc.code, code, errs)
			requireJUnitAgrees(t, code, dir)

			res := readResult(t, dir)
			require.NotNil(t, res.Gate, "the gate is in result.json")
			assert.Equal(t, record.Gate{MinScore: tc.min, Met: tc.met, Reason: tc.reason}, *res.Gate)
			require.Len(t, res.Targets, 1)
			assert.Equal(t, 1, res.Targets[0].Score.Level)
			assert.Equal(t, tc.met, res.Targets[0].Gate.Met)

			var rep reports.Report
			require.NoError(t, json.Unmarshal([]byte(out), &rep))
			assert.NoError(t, schema.ValidateReport([]byte(out)))
			assert.Equal(t, res.Gate, rep.Gate, "the JSON report carries the gate")
			assert.Equal(t, res.Targets[0].Gate, rep.Targets[0].Gate)

			xmlText := readFile(t, filepath.Join(dir, "report.xml"))
			assert.Contains(t, xmlText, `<testcase name="score" classname="idemcheck.noeffect"`)
			md := readFile(t, filepath.Join(dir, "report.md"))
			txt := oneSpace(readFile(t, filepath.Join(dir, "report.txt"))) // wrapped at 80 columns
			page := readFile(t, filepath.Join(dir, "report.html"))
			if tc.met {
				assert.Contains(t, md, "**PASS**: "+tc.reason)
				assert.Contains(t, txt, "gate: PASS (--min-score "+fmt.Sprint(tc.min)+"): "+tc.reason)
				assert.Contains(t, errs, "gate passed")
			} else {
				assert.Contains(t, xmlText, `<failure message="gate not met: score 1, below --min-score 3" type="gate">`)
				assert.Contains(t, md, "**FAIL**: "+tc.reason)
				assert.Contains(t, txt, "gate: FAIL (--min-score 3): "+tc.reason)
				assert.Contains(t, page, "FAIL: "+tc.reason)
				assert.Contains(t, errs, "idemcheck: gate failed (seed 6): "+tc.reason)
			}
		})
	}
	requireNoTargetsLeft(t)
}

// TestOnlyReportsAPartialScore: --only replays report the score as
// partial, never as a 0 the checks that did not run would have caused;
// run no trials unless asked; and gate on the findings of the checks that
// ran (a partial score does not fail the gate by itself).
func TestOnlyReportsAPartialScore(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	cfg := writeConfigWith(t, "faults: []\n", "correct")
	dir := t.TempDir()
	code, out, errs := runCLI(t, ctx, "run", "-c", cfg, "--only", "key.required", "--seed", "2", "--format", "json,junit,md,text", "--out", dir)
	require.Equal(t, exitOK, code, "a correct target, no finding of key.required: %s", errs)
	requireJUnitAgrees(t, code, dir)
	assert.Contains(t, errs, "correct: partial score, 0 findings", "the progress line too")
	assert.NotRegexp(t, `correct: score \d`, errs)
	var rep reports.Report
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.NoError(t, schema.ValidateReport([]byte(out)))
	tr := rep.Targets[0]
	assert.True(t, tr.ScorePartial)
	assert.Equal(t, -1, tr.Score, "no score is computed")
	assert.Contains(t, tr.ScoreReason, "partial score, not computed: only key.required ran (--only)")
	assert.NotContains(t, tr.ScoreReason, "did not run")
	assert.Zero(t, tr.Summary.Trials, "no generated trial without --trials")
	assert.Equal(t, []string{"key.required"}, rep.Meta.Only)
	assert.True(t, tr.Gate.Met, tr.Gate.Reason)
	assert.Contains(t, readFile(t, filepath.Join(dir, "report.md")), "| correct | http | **partial score** |")
	assert.Regexp(t, `(?m)^correct\s+partial\s`, readFile(t, filepath.Join(dir, "report.txt")))

	// report re-scores the saved result: it stays partial.
	code, out, errs = runCLI(t, ctx, "report", "--format", "json", "--quiet", filepath.Join(dir, "result.json"))
	require.Equal(t, exitOK, code, errs)
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.True(t, rep.Targets[0].ScorePartial, "re-scored, still partial")

	// Trials run when asked for.
	code, out, errs = runCLI(t, ctx, "run", "-c", cfg, "--only", "retry.sequential", "--trials", "2", "--seed", "2", "--format", "json", "--quiet")
	require.Equal(t, exitOK, code, errs)
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.Equal(t, 2, rep.Targets[0].Summary.Trials, "--trials given: they run")

	// A finding of the checks that ran fails the gate when it alone keeps
	// the target below --min-score: the minor key.mismatch at 3, not at 2.
	mismatch := writeConfigWith(t, "faults: []\n", "mismatch")
	dir = t.TempDir()
	code, _, errs = runCLI(t, ctx, "run", "-c", mismatch, "--only", "key.mismatch", "--seed", "2", "--format", "junit", "--out", dir, "--quiet")
	require.Equal(t, exitBelow, code, errs)
	requireJUnitAgrees(t, code, dir)
	assert.Contains(t, errs, "mismatch: a minor finding (key.mismatch create-order)")
	code, _, errs = runCLI(t, ctx, "run", "-c", mismatch, "--only", "key.mismatch", "--seed", "2", "--min-score", "2", "--format", "junit", "--out", dir, "--quiet")
	require.Equal(t, exitOK, code, errs)
	requireJUnitAgrees(t, code, dir)
	requireNoTargetsLeft(t)
}

// switchConfig writes a configuration whose one target runs the shop
// profile named in the file it returns: the configuration stays the same
// while the target changes, as a service does between two commits.
func switchConfig(t *testing.T) (cfg, profile string) {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	dir := t.TempDir()
	profile = filepath.Join(dir, "profile")
	cfg = filepath.Join(dir, "idemcheck.yaml")
	// The profiles compared here forget no key with time: the late
	// retries come at once.
	require.NoError(t, os.WriteFile(cfg, []byte(fmt.Sprintf(`version: 1
fakes:
  payments: {}
retry: {late_delay: 1ms}
targets:
  - name: shop
    kind: http
    url: "http://127.0.0.1:{{port}}"
    start:
      command: ["sh", "-c", "exec \"$SHOP_EXE\" __example shop --profile \"$(cat \"$SHOP_PROFILE\")\" --listen 127.0.0.1:{{port}} --state {{state_dir}}"]
      env: {PAYMENTS_URL: "{{fakes.payments.url}}", SHOP_EXE: %q, SHOP_PROFILE: %q}
      ready: {path: /healthz}
    dry_run: {query: dry_run}
    operations:
      - name: create-order
        mutating: true
        method: POST
        path: /orders
        body: '{"customer":"{{input.customer}}","amount":{{input.amount}},"memo":"{{marker}}"}'
        inputs:
          customer: {string: {prefix: cus_}}
          amount: {int: [100, 999]}
`, exe, profile)), 0o644))
	return cfg, profile
}

// TestBaselineGatesOnWhatIsNew: a target that fixed one flaw and gained
// another, compared with its earlier run: the fixed and the new finding
// are reported, and only the new one fails the gate.
func TestBaselineGatesOnWhatIsNew(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	cfg, profile := switchConfig(t)
	setProfile := func(p string) { require.NoError(t, os.WriteFile(profile, []byte(p), 0o644)) }
	run := func(dir string, args ...string) (int, string, string) {
		return runCLI(t, ctx, append([]string{"run", "-c", cfg, "--trials", "0", "--seed", "8", "--format", "json,junit,md,text", "--out", dir, "--quiet"}, args...)...)
	}

	// The baseline: replies without their effect (effect.field, score 1).
	setProfile("noeffect")
	old := t.TempDir()
	code, _, errs := run(old)
	require.Equal(t, exitBelow, code, errs)
	oldResult := filepath.Join(old, "result.json")

	// Now: the effect is stated, but a reused key with another payload is
	// replayed (key.mismatch, minor, score 2).
	setProfile("mismatch")
	now := t.TempDir()
	code, out, errs := run(now, "--baseline", oldResult)
	require.Equal(t, exitBelow, code, "a new minor finding fails the default gate: %s", errs)
	requireJUnitAgrees(t, code, now)
	var rep reports.Report
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.NoError(t, schema.ValidateReport([]byte(out)))
	d := rep.Targets[0].Baseline
	require.NotNil(t, d, "the comparison is in the JSON report")
	assert.Equal(t, record.ScoreHigher, d.ScoreChange)
	require.Len(t, d.New, 1)
	assert.Equal(t, checks.CheckKeyMismatch, d.New[0].Check)
	require.Len(t, d.Fixed, 1)
	assert.Equal(t, checks.CheckEffectField, d.Fixed[0].Check)
	assert.Empty(t, d.Still)
	assert.Equal(t, "shop: a new minor finding (key.mismatch create-order)", rep.Gate.Reason)
	assert.Equal(t, oldResult, rep.Gate.Baseline)
	md := readFile(t, filepath.Join(now, "report.md"))
	assert.Contains(t, md, "**Since the baseline** (`"+oldResult+"`): 1 new, 1 fixed, 0 still present; score higher than the baseline's 1.")
	assert.Regexp(t, "(?s)New:\n\n- \\*\\*minor\\*\\* `key.mismatch` create-order: .*\nFixed:\n\n- \\*\\*major\\*\\* `effect.field` create-order: ", md)
	txt := readFile(t, filepath.Join(now, "report.txt"))
	assert.Contains(t, txt, "shop since the baseline: 1 new, 1 fixed, 0 still present")
	assert.Contains(t, txt, "  new   minor    key.mismatch create-order")
	assert.Contains(t, txt, "  fixed major    effect.field create-order")
	assert.Equal(t, rep.Targets[0].Baseline, readResult(t, now).Targets[0].Baseline, "and in result.json")

	// At --min-score 2 a new minor finding is within the gate.
	code, _, errs = run(t.TempDir(), "--baseline", oldResult, "--min-score", "2")
	assert.Equal(t, exitOK, code, errs)

	// The same again: below 3, but nothing new, so the gate passes.
	again := t.TempDir()
	code, _, errs = run(again, "--baseline", filepath.Join(now, "result.json"))
	require.Equal(t, exitOK, code, "nothing new since the baseline: %s", errs)
	requireJUnitAgrees(t, code, again)
	xmlText := readFile(t, filepath.Join(again, "report.xml"))
	assert.Contains(t, xmlText, `<skipped message="failed, within the gate: score 2 is below --min-score 3 but not lower than the baseline&#39;s`, "the old finding is kept, not failed")

	// Back to the old flaw: a lower score fails, even at --min-score 1,
	// where a new major finding alone would not.
	setProfile("noeffect")
	back := t.TempDir()
	code, _, errs = run(back, "--baseline", filepath.Join(now, "result.json"), "--min-score", "1")
	require.Equal(t, exitBelow, code, errs)
	requireJUnitAgrees(t, code, back)
	assert.Contains(t, errs, "shop: score 1, lower than the baseline's 2")

	// report gates a saved result on its baseline as run did.
	code, _, errs = runCLI(t, ctx, "report", "--format", "md", "--quiet", filepath.Join(now, "result.json"), "--baseline", oldResult)
	assert.Equal(t, exitBelow, code, errs)
	assert.Contains(t, errs, "shop: a new minor finding (key.mismatch create-order)")
	code, _, errs = runCLI(t, ctx, "report", "--format", "md", "--quiet", "--min-score", "2", "--baseline", oldResult, filepath.Join(now, "result.json"))
	assert.Equal(t, exitOK, code, errs)

	// A baseline that is not a result, or one shard of a run.
	shard := readResult(t, old)
	shard.Meta.Shard = "1/2"
	shardPath := writeResult(t, t.TempDir(), "result.json", shard)
	for _, tc := range []struct {
		why, path, want string
	}{
		{"a JSON report", filepath.Join(now, "report.json"), "a JSON report (idemcheck.report/v1)"},
		{"a missing file", filepath.Join(now, "nope.json"), "no such file"},
		{"a shard", shardPath, "shard 1/2 of a run, which judged only part of it"},
	} {
		t.Run(tc.why, func(t *testing.T) {
			code, out, errs := run(t.TempDir(), "--baseline", tc.path)
			assert.Equal(t, exitUsage, code, errs)
			assert.Contains(t, errs, "--baseline "+tc.path+": ")
			assert.Contains(t, errs, tc.want)
			assert.Empty(t, out, "nothing ran")
			code, _, errs = runCLI(t, ctx, "report", "--baseline", tc.path, filepath.Join(now, "result.json"))
			assert.Equal(t, exitUsage, code, errs)
			assert.Contains(t, errs, tc.want)
		})
	}
	requireNoTargetsLeft(t)
}

// TestEachErrorIsPrintedOnce: a target that cannot start, a start command
// that does not exist and a bad configuration each say their error once
// on stderr.
func TestEachErrorIsPrintedOnce(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
		return p
	}
	target := func(command string) string {
		return `version: 1
targets:
  - name: broken
    kind: http
    url: "http://127.0.0.1:{{port}}"
    start: {command: ` + command + `}
    operations:
      - {name: op, mutating: true, method: POST, path: "/x?m={{marker}}"}
`
	}
	exits := write("exits.yaml", target(`["sh", "-c", "echo cannot open database >&2; exit 4"]`))
	missing := write("missing.yaml", target(`["./no-such-server"]`))
	bad := write("bad.yaml", "version: 1\ntargetz: []\n")
	for _, tc := range []struct {
		why  string
		args []string
		code int
		once string
	}{
		{"a start that fails, with progress", []string{"run", "-c", exits, "--trials", "0"}, exitHarness, "cannot open database"},
		{"a start that fails, quiet", []string{"run", "-c", exits, "--trials", "0", "--quiet", "--format", "json"}, exitHarness, "cannot open database"},
		{"a start command that does not exist", []string{"run", "-c", missing}, exitUsage, "does not exist"},
		{"a bad configuration", []string{"run", "-c", bad}, exitUsage, `unknown field "targetz"`},
	} {
		t.Run(tc.why, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
			defer cancel()
			code, _, errs := runCLI(t, ctx, tc.args...)
			assert.Equal(t, tc.code, code, errs)
			assert.Equal(t, 1, strings.Count(errs, tc.once), "said once on stderr:\n%s", errs)
			assert.LessOrEqual(t, strings.Count(errs, "hint: "), 1, "one hint:\n%s", errs)
		})
	}
	requireNoTargetsLeft(t)
}

// oneSpace puts text on one line with single spaces, as a wrapped report
// reads.
func oneSpace(text string) string { return strings.Join(strings.Fields(text), " ") }
