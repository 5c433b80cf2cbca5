package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/examples"
	"github.com/idemcheck/idemcheck/internal/refexe"
	"github.com/idemcheck/idemcheck/reports"
	"github.com/idemcheck/idemcheck/scenarios"
)

var update = flag.Bool("update", false, "rewrite golden files")

// checkDemoAsBuilt checks a demo run that wrote every format to dir and
// printed its JSON report (out): every reference target is in it with the
// score it was built for, one that scores 3 has no finding, every report
// is valid (report_test.go), and the text table fits 80 columns.
func checkDemoAsBuilt(t *testing.T, dir, out string) {
	t.Helper()
	t.Run("reports", func(t *testing.T) {
		rctx, cancel := context.WithTimeout(context.Background(), hangGuard)
		defer cancel()
		checkDemoReports(t, rctx, dir, out)
	})
	var rep reports.Report
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.Equal(t, reports.ReportSchema, rep.Schema)
	assert.EqualValues(t, demoSeed, rep.Seed)
	exe := refexe.Path(t)
	withDeps, _ := examples.DependencyDemo(exe)
	demo := append(examples.Demo(exe), withDeps...)
	require.Len(t, rep.Targets, len(demo), "every reference target is in the report")
	scores := map[string]int{}
	kinds := map[string]string{}
	for _, tr := range rep.Targets {
		scores[tr.Name], kinds[tr.Name] = tr.Score, tr.Kind
		if tr.Score == 3 {
			assert.Empty(t, tr.Findings, "%s scores 3 with no finding", tr.Name)
		}
	}
	for _, d := range demo {
		assert.Equal(t, d.Built, scores[d.Spec.Name], "%s is built for %d", d.Spec.Name, d.Built)
		assert.Equal(t, d.Spec.Kind, kinds[d.Spec.Name])
	}
	for _, f := range []string{"report.json", "result.json"} {
		_, err := os.Stat(filepath.Join(dir, f))
		assert.NoError(t, err, f)
	}
	t.Run("text table", func(t *testing.T) {
		b, err := os.ReadFile(filepath.Join(dir, "report.txt"))
		require.NoError(t, err)
		out := string(b)
		assert.Regexp(t, `(?m)^correct\s+3\s+3\s+0\s+-$`, out)
		assert.Regexp(t, `(?m)^nokey\s+0\s+0\s+`, out)
		assert.Regexp(t, `(?m)^mcp-correct\s+3\s+3\s+0\s+-$`, out)
		assert.Regexp(t, `(?m)^mcp-readonly-liar\s+0\s+0\s+\d+\s+safe.readonly,\s+mcp.readonly-hint$`, out)
		// Effects in the targets' own data: a ledger attributed by delta,
		// a JSON file rewritten whole.
		assert.Regexp(t, `(?m)^ledger-correct\s+3\s+3\s+0\s+-$`, out)
		assert.Regexp(t, `(?m)^ledger-no-fingerprint\s+2\s+2\s+1\s+key.mismatch$`, out)
		assert.Regexp(t, `(?m)^jsonstore-rewrite\s+0\s+0\s+\d+\s+concurrent\.duplicates,\s+concurrent\.distinct$`, out)
		assert.Regexp(t, `(?m)^consumer-nats-correct\s+3\s+3\s+0\s+-$`, out)
		assert.Regexp(t, `(?m)^consumer-kafka-correct\s+3\s+3\s+0\s+-$`, out)
		assert.Regexp(t, `(?m)^consumer-kafka-mark-first\s+0\s+0\s+\d+\s+exactly-once$`, out)
		assert.Regexp(t, `(?m)^consumer-nats-ack-first\s+0\s+0\s+\d+\s+exactly-once$`, out)
		// The whole demo's text output fits 80 columns.
		for i, line := range strings.Split(out, "\n") {
			assert.LessOrEqual(t, utf8.RuneCountInString(line), reports.TextWidth, "report.txt line %d: %q", i+1, line)
		}
		assert.NotContains(t, out, "\x1b[", "no colour in a file")
	})
}

// writeConfig writes a configuration that runs the reference shop profiles
// from this test binary, and returns its path.
func writeConfig(t *testing.T, profiles ...string) string {
	t.Helper()
	return writeConfigWith(t, "", profiles...)
}

// writeConfigWith is writeConfig with extra top-level YAML.
func writeConfigWith(t *testing.T, extra string, profiles ...string) string {
	t.Helper()
	exe := refexe.Path(t)
	var b strings.Builder
	b.WriteString("version: 1\n" + extra + "fakes:\n  payments: {}\ntargets:\n")
	for _, p := range profiles {
		// A profile may be followed by its own flags: "bounded-keys --keys 8".
		args := strings.Fields(p)
		p = args[0]
		extraArgs := ""
		for _, a := range args[1:] {
			extraArgs += fmt.Sprintf(", %q", a)
		}
		dry := ""
		if p != "nokey" && p != "nodryrun" {
			dry = "    dry_run: {query: dry_run}\n"
		}
		fmt.Fprintf(&b, `  - name: %s
    kind: http
    url: "http://127.0.0.1:{{port}}"
    start:
      command: [%q, "__example", "shop", "--profile", %q%s, "--listen", "127.0.0.1:{{port}}", "--state", "{{state_dir}}"]
      env: {PAYMENTS_URL: "{{fakes.payments.url}}"}
      ready: {path: /healthz}
%s    operations:
      - name: create-order
        mutating: true
        method: POST
        path: /orders
        body: '{"customer":"{{input.customer}}","amount":{{input.amount}},"memo":"{{marker}}"}'
        inputs:
          customer: {string: {prefix: cus_}}
          amount: {int: [100, 999]}
      - name: list-orders
        mutating: false
        method: GET
        path: "/orders?customer={{input.customer}}&trace={{marker}}"
        inputs:
          customer: {string: {prefix: cus_}}
`, p, exe, p, extraArgs, dry)
	}
	path := filepath.Join(t.TempDir(), "idemcheck.yaml")
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	return path
}

var (
	scrubTime     = regexp.MustCompile(`"(start|end|at|started)": "[^"]*"`)
	scrubDuration = regexp.MustCompile(`"duration_ms": \d+`)
	scrubAttempt  = regexp.MustCompile(`[0-9a-f]{8}-(\d+)-(\d+)`)
	scrubCreated  = regexp.MustCompile(`\\"created\\":\d+`)
	scrubPort     = regexp.MustCompile(`127\.0\.0\.1:\d+`)
	// The configuration is written to a temporary directory, and names
	// this test binary: its path and digest differ from run to run.
	scrubConfig    = regexp.MustCompile(`"config": "[^"]*"`)
	scrubDigest    = regexp.MustCompile(`"config_digest": "[0-9a-f]{64}"`)
	scrubConfigArg = regexp.MustCompile(`-c [^ "]+\.yaml`)
)

func scrub(s string) string {
	s = scrubTime.ReplaceAllString(s, `"$1": "<time>"`)
	s = scrubDuration.ReplaceAllString(s, `"duration_ms": 0`)
	s = scrubAttempt.ReplaceAllString(s, `<run>-$1-$2`)
	s = scrubCreated.ReplaceAllString(s, `\"created\":0`)
	s = scrubPort.ReplaceAllString(s, `127.0.0.1:<port>`)
	s = scrubConfig.ReplaceAllString(s, `"config": "<config>"`)
	s = scrubDigest.ReplaceAllString(s, `"config_digest": "<sha256>"`)
	s = scrubConfigArg.ReplaceAllString(s, `-c <config>`)
	return s
}

// TestRunJSONGolden pins the JSON report, the machine contract: a change
// here is a change of idemcheck.report/v1 and must be deliberate
// (go test ./cmd/idemcheck -run Golden -update). Bursts are left out: which
// copy of a burst wins is up to the scheduler, so their evidence differs
// from run to run; so is client-disconnect: whether the abandoned call's
// charge or the retry's is recorded first is the scheduler's choice too.
func TestRunJSONGolden(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	cfg := writeConfigWith(t, "checks: {skip: [concurrent.duplicates]}\nfaults: [client-timeout, 503-before, lost-response, reset, hang, downstream-503, downstream-503-after, downstream-reset-after, crash-before-effect, crash-after-effect, crash-after-reply]\n", "correct", "nokey")
	code, out, errs := runCLI(t, ctx, "run", "-c", cfg, "--trials", "0", "--format", "json", "--seed", "7", "--nonce", "1", "--quiet")
	require.Equal(t, exitBelow, code, "nokey has critical findings: %s", errs)
	got := scrub(out)
	golden := filepath.Join("testdata", "run.golden.json")
	if *update {
		require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err, "run with -update to create it")
	assert.Equal(t, string(want), got)
	requireNoTargetsLeft(t)
}

func TestRunExitCodes(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	// mismatch forgets no key with time: the late retries come at once.
	cfg := writeConfigWith(t, "retry: {late_delay: 1ms}\n", "mismatch")
	code, _, errs := runCLI(t, ctx, "run", "-c", cfg, "--trials", "0", "--quiet")
	assert.Equal(t, exitBelow, code, "score 2 is below the default --min-score 3: %s", errs)
	assert.Contains(t, errs, "gate failed", "the reason is said even with --quiet")
	code, _, errs = runCLI(t, ctx, "run", "-c", cfg, "--trials", "0", "--quiet", "--min-score", "2")
	assert.Equal(t, exitOK, code, "score 2 meets --min-score 2: %s", errs)
	requireNoTargetsLeft(t)
}

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
		return p
	}
	exitsAtStart := write("exits.yaml", `version: 1
targets:
  - name: broken
    kind: http
    url: "http://127.0.0.1:{{port}}"
    start: {command: ["sh", "-c", "echo cannot open database >&2; exit 4"]}
    operations:
      - {name: op, mutating: true, method: POST, path: "/x?m={{marker}}"}
`)
	unreachable := write("unreachable.yaml", `version: 1
targets:
  - name: gone
    kind: http
    url: "http://127.0.0.1:1"
    operations:
      - {name: op, mutating: true, method: POST, path: "/x?m={{marker}}"}
`)
	cases := []struct {
		why  string
		args []string
		code int
		want []string
	}{
		{"no command", nil, exitUsage, []string{"Usage"}},
		{"unknown command", []string{"frobnicate"}, exitUsage, []string{`unknown command "frobnicate"`}},
		{"run without -c and no idemcheck.yaml here", []string{"run"}, exitUsage, []string{"no idemcheck.yaml in", "-c FILE"}},
		{"missing file", []string{"run", "-c", filepath.Join(dir, "nope.yaml")}, exitUsage, []string{"nope.yaml"}},
		{"unknown field names file, line and field", []string{"run", "-c", write("unknown.yaml", "version: 1\ntargetz: []\n")}, exitUsage, []string{"unknown.yaml:2", "targetz"}},
		{"wrong type names file, line and field", []string{"run", "-c", write("type.yaml", "version: one\ntargets: []\n")}, exitUsage, []string{"type.yaml:1", "version"}},
		{"no target", []string{"run", "-c", write("empty.yaml", "version: 1\n")}, exitUsage, []string{"empty.yaml", "targets"}},
		{"bad format", []string{"demo", "--format", "pdf"}, exitUsage, []string{`unknown format "pdf"`}},
		{"bad seed", []string{"demo", "--seed", "abc"}, exitUsage, []string{`"abc" is not a seed`}},
		{"bad min-score", []string{"demo", "--min-score", "7"}, exitUsage, []string{"not a score"}},
		{"bad jobs", []string{"demo", "--jobs", "-1"}, exitUsage, []string{"--jobs: -1 is not a number of targets at once"}},
		{"target exits at start", []string{"run", "-c", exitsAtStart, "--quiet"}, exitHarness, []string{"broken", "cannot open database"}},
		{"unreachable target", []string{"run", "-c", unreachable, "--quiet"}, exitHarness, []string{"gone", "refused"}},
	}
	for _, tc := range cases {
		t.Run(tc.why, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			code, out, errs := runCLI(t, ctx, tc.args...)
			assert.Equal(t, tc.code, code, "stdout: %s\nstderr: %s", out, errs)
			for _, w := range tc.want {
				assert.Contains(t, out+errs, w)
			}
			assert.NotContains(t, errs, "panic")
		})
	}
	requireNoTargetsLeft(t)
}

// TestInterruptStopsEverything cancels a demo as soon as the first target
// started, and checks that the program reports the interruption (130) and
// leaves no process behind.
func TestInterruptStopsEverything(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		code := run(ctx, []string{"demo"}, strings.NewReader(""), io.Discard, pw)
		pw.Close()
		done <- code
	}()
	// Should the demo never say "started", the read below must still end.
	watchdog := time.AfterFunc(time.Minute, cancel)
	defer watchdog.Stop()
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		if strings.Contains(sc.Text(), "started") {
			cancel()
			break
		}
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	select {
	case code := <-done:
		assert.Equal(t, exitInterrupted, code)
	case <-time.After(90 * time.Second):
		// Normally milliseconds: every process gets SIGTERM, then SIGKILL
		// after a grace period; the bound is for a heavily loaded machine.
		t.Fatal("the demo did not stop after the interrupt")
	}
	requireNoTargetsLeft(t)
}

// TestKilledHarnessLeavesNoOrphan SIGKILLs the idemcheck process mid-run:
// its targets must die with it.
func TestKilledHarnessLeavesNoOrphan(t *testing.T) {
	cmd := exec.Command(os.Args[0], "demo")
	cmd.Env = append(os.Environ(), "IDEMCHECK_TEST_MAIN=1")
	cmd.WaitDelay = 10 * time.Second // never wait for ever on its output
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	cmd.Stdout = io.Discard
	require.NoError(t, cmd.Start())
	// Should the demo never say "started", the read below must still end.
	watchdog := time.AfterFunc(time.Minute, func() { _ = cmd.Process.Kill() })
	defer watchdog.Stop()
	sc := bufio.NewScanner(stderr)
	started := false
	for sc.Scan() {
		if strings.Contains(sc.Text(), "started") {
			started = true
			break
		}
	}
	require.True(t, started, "the demo never started a target")
	// Wait until a target process exists, then kill the harness outright.
	deadline := time.Now().Add(10 * time.Second)
	for len(without(tagged(t), []int{cmd.Process.Pid})) == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond) // polling /proc: there is no event to wait on
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	go func() { _, _ = io.Copy(io.Discard, stderr) }()
	_ = cmd.Wait()
	requireNoTargetsLeft(t)
}

// TestTrialsAreSavedAndReplayed: generated trials find what the probes of
// key.mismatch cannot (a store of 8 keys takes a changed payload under a
// key it forgot after 8 others as new), the minimal counterexample is kept
// under --out with a replay command that the text report shows too, the
// next run with the same --out runs it first, and `replay` runs it alone.
func TestTrialsAreSavedAndReplayed(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	// The late retries come at once: the store of 8 keys forgets a key
	// after 8 others, not with time, and the other stores forget none.
	const extra = "faults: []\nretry: {late_delay: 1ms}\n"
	cfg := writeConfigWith(t, extra, "bounded-keys --keys 8")
	// --out names a directory that does not exist yet, as a CI job's first
	// run does: it is made, and no report is lost to the failing trial.
	dir := filepath.Join(t.TempDir(), "idemcheck-reports", "run-1")
	code, out, errs := runCLI(t, ctx, "run", "-c", cfg, "--trials", "400", "--budget", "60s", "--seed", "2", "--format", "json,junit,md,html,text", "--out", dir)
	require.Equal(t, exitBelow, code, errs)
	saved := filepath.Join(dir, failingTrialsFile)
	require.FileExists(t, saved)
	for _, f := range []string{"result.json", "report.json", "report.xml", "report.md", "report.html"} {
		assert.FileExists(t, filepath.Join(dir, f))
	}
	assert.Contains(t, errs, "minimal counterexample")
	var rep reports.Report
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	var trialFinding bool
	for _, f := range rep.Targets[0].Findings {
		if f.Trial {
			trialFinding = true
			assert.Equal(t, "key.mismatch", f.Check)
			assert.Contains(t, f.Replay, "idemcheck replay -c "+cfg+" "+saved)
		}
	}
	assert.True(t, trialFinding, "the trial's finding is in the report")
	text := strings.Join(strings.Fields(readFile(t, filepath.Join(dir, "report.txt"))), " ")
	assert.Contains(t, text, "replay it: idemcheck replay -c "+cfg+" "+saved, "the text report says how to replay the trial, unwrapped")

	code, _, errs = runCLI(t, ctx, "run", "-c", cfg, "--trials", "0", "--seed", "3", "--out", dir)
	require.Equal(t, exitBelow, code, errs)
	assert.Contains(t, errs, "a saved failing trial still fails", "the next run replays it first")

	// replay's verdict is the saved trial's: it fails while the trial does
	// (whatever else the probes find), and passes against the correct
	// store, which keeps every key.
	code, out, errs = runCLI(t, ctx, "replay", "-c", cfg, saved)
	require.Equal(t, exitBelow, code, errs)
	assert.Contains(t, errs, "still fails ([key.mismatch])")
	assert.Contains(t, errs, "a saved trial still fails")
	assert.Contains(t, out, "gate: FAIL (saved trials run again): bounded-keys: a saved trial still fails", "the gate is the saved trials', not a score's")
	assert.NotContains(t, out, "--min-score")
	fixed := writeConfigWith(t, extra, "correct")
	doc := strings.ReplaceAll(readFile(t, saved), `"target": "bounded-keys"`, `"target": "correct"`)
	fixedSaved := filepath.Join(t.TempDir(), "failing-trials.json")
	require.NoError(t, os.WriteFile(fixedSaved, []byte(doc), 0o644))
	// Its flags may follow the file (TestFlagsAfterTheFile).
	code, _, errs = runCLI(t, ctx, "replay", fixedSaved, "-c", fixed, "--seed", "3")
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, errs, "passes now: fixed")

	// A saved trial that passes this time, against a target whose probes
	// still fail a check it failed, is not said to be fixed.
	var trials []scenarios.Saved
	require.NoError(t, json.Unmarshal([]byte(readFile(t, saved)), &trials))
	for i := range trials {
		trials[i].Target, trials[i].Checks = "nodryrun", []string{"dryrun"}
	}
	raced := filepath.Join(t.TempDir(), "failing-trials.json")
	b, err := json.Marshal(trials)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(raced, b, 0o644))
	_, _, errs = runCLI(t, ctx, "replay", "-c", writeConfigWith(t, extra, "nodryrun"), raced)
	assert.Contains(t, errs, "passes this time, but this run's probes still fail dryrun at its operations: the flaw it caught is still there")
	assert.NotContains(t, errs, "fixed")

	code, _, errs = runCLI(t, ctx, "replay", "-c", cfg, "--min-score", "3", saved)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "min-score", "replay has no --min-score: its verdict is the saved trials'")

	code, _, errs = runCLI(t, ctx, "replay", "-c", cfg, filepath.Join(dir, "nope.json"))
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "nope.json does not exist")
	requireNoTargetsLeft(t)
}

// TestTrialsInTheRealProgram runs idemcheck as its own process (not inside
// go test, where the testing flags are parsed) with generated trials.
func TestTrialsInTheRealProgram(t *testing.T) {
	cfg := writeConfigWith(t, "faults: []\n", "correct")
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "run", "-c", cfg, "--trials", "3", "--only", "retry.sequential", "--format", "json")
	cmd.Env = append(os.Environ(), "IDEMCHECK_TEST_MAIN=1")
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.Output()
	var stderr string
	if ee, ok := err.(*exec.ExitError); ok {
		stderr = string(ee.Stderr)
	}
	require.NoError(t, err, stderr)
	var rep reports.Report
	require.NoError(t, json.Unmarshal(out, &rep))
	require.Len(t, rep.Targets, 1)
	assert.Empty(t, rep.Targets[0].Error)
	requireNoTargetsLeft(t)
}

// TestTargetRunsThoseTargetsAlone: --target runs only the targets it
// names, and a finding of a run of several targets is replayed on its
// own target (its replay command says --target); a name the file does
// not have is a usage error that lists those it has.
func TestTargetRunsThoseTargetsAlone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg := writeConfigWith(t, "faults: []\n", "correct", "nokey")
	code, out, errs := runCLI(t, ctx, "run", "-c", cfg, "--trials", "0", "--seed", "4", "--only", "retry.sequential", "--format", "json", "--target", "nokey")
	require.Equal(t, exitBelow, code, errs)
	var res struct {
		Targets []struct {
			Name     string
			Findings []struct{ Replay string }
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	require.Len(t, res.Targets, 1)
	assert.Equal(t, "nokey", res.Targets[0].Name)
	require.NotEmpty(t, res.Targets[0].Findings)
	assert.Contains(t, res.Targets[0].Findings[0].Replay, "--target nokey", "a run of some of the file's targets replays on the finding's alone")

	code, out, errs = runCLI(t, ctx, "run", "-c", cfg, "--trials", "0", "--seed", "4", "--only", "retry.sequential")
	require.Equal(t, exitBelow, code, errs)
	assert.Contains(t, out, "--only retry.sequential --target nokey", "the replay of nokey's finding runs nokey alone")

	code, _, errs = runCLI(t, ctx, "run", "-c", cfg, "--target", "nokey,nope")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, `has no target "nope" (its targets: correct, nokey)`)
}
