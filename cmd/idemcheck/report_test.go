package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/examples/shop"
	"github.com/idemcheck/idemcheck/record"
	"github.com/idemcheck/idemcheck/reports"
	"github.com/idemcheck/idemcheck/reports/schema"
)

var screenshots = flag.String("screenshots", "", "also keep the HTML report's screenshots in this directory")

// verdicts is what a report says about one target, without what differs
// from run to run (fake ids in messages, times): the score, each check's
// status, and each finding's check, severity, operation and fault.
type verdicts struct {
	Score    int
	Checks   []string
	Findings []string
}

func verdictsOf(t *testing.T, reportJSON string) map[string]verdicts {
	t.Helper()
	var rep reports.Report
	require.NoError(t, json.Unmarshal([]byte(reportJSON), &rep), "a JSON report")
	out := map[string]verdicts{}
	for _, tr := range rep.Targets {
		v := verdicts{Score: tr.Score}
		for _, c := range tr.Checks {
			v.Checks = append(v.Checks, c.ID+" "+string(c.Status))
		}
		for _, f := range tr.Findings {
			v.Findings = append(v.Findings, strings.Join([]string{f.Check, string(f.Severity), f.Operation, f.Fault}, " "))
		}
		sort.Strings(v.Findings)
		out[tr.Name] = v
	}
	return out
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

// checkDemoReports checks the reports a demo run wrote to dir with every
// format (json first, so stdout is the JSON report): the JSON against its
// schema, the JUnit XML, the Markdown, the HTML in a real browser, and that
// idemcheck report makes the same verdicts again from the saved result.
// TestDemoSameSeedTwice calls it (through checkDemoAsBuilt) on its first
// demo run, so that no other test runs the demo (the slowest thing the
// tests do) again.
func checkDemoReports(t *testing.T, ctx context.Context, dir, stdout string) {
	for _, f := range []string{"report.txt", "report.json", "report.xml", "report.md", "report.html", "result.json"} {
		_, err := os.Stat(filepath.Join(dir, f))
		require.NoError(t, err, f)
	}
	reportJSON := readFile(t, filepath.Join(dir, "report.json"))
	assert.Equal(t, reportJSON, stdout, "the first format goes to stdout too")

	t.Run("the JSON report validates against its schema", func(t *testing.T) {
		assert.NoError(t, schema.ValidateReport([]byte(reportJSON)))
		var rep reports.Report
		require.NoError(t, json.Unmarshal([]byte(reportJSON), &rep))
		assert.Equal(t, record.Meta{Version: devVersion, Command: "demo"}, rep.Meta)
		assert.Equal(t, "idemcheck demo --seed 1", rep.Replay)
		assert.Equal(t, len(rep.Targets), rep.Summary.Targets)
		assert.GreaterOrEqual(t, len(rep.Targets), len(shop.Profiles))
		assert.Positive(t, rep.Summary.Attempts)
		for _, tr := range rep.Targets {
			for _, f := range tr.Findings {
				assert.Equal(t, "idemcheck demo --seed 1", f.Replay)
			}
		}
	})

	t.Run("the JUnit report has a suite per target and a case per check", func(t *testing.T) {
		var doc struct {
			Tests    int `xml:"tests,attr"`
			Failures int `xml:"failures,attr"`
			Suites   []struct {
				Name       string `xml:"name,attr"`
				Tests      int    `xml:"tests,attr"`
				Failures   int    `xml:"failures,attr"`
				Properties []struct {
					Name  string `xml:"name,attr"`
					Value string `xml:"value,attr"`
				} `xml:"properties>property"`
				Cases []struct {
					Name    string    `xml:"name,attr"`
					Failure *struct{} `xml:"failure"`
				} `xml:"testcase"`
			} `xml:"testsuite"`
		}
		require.NoError(t, xml.Unmarshal([]byte(readFile(t, filepath.Join(dir, "report.xml"))), &doc))
		want := verdictsOf(t, reportJSON)
		require.Len(t, doc.Suites, len(want), "a suite per target")
		assert.Zero(t, doc.Failures, "the demo exited 0: every reference target met its gate (scored as built)")
		for _, s := range doc.Suites {
			assert.Len(t, s.Cases, 1+len(want[s.Name].Checks), "a case for the score and one per check of %s", s.Name)
			failed := 0
			for _, c := range s.Cases {
				if c.Failure != nil {
					failed++
				}
			}
			assert.Equal(t, s.Failures, failed, s.Name)
			props := map[string]string{}
			for _, p := range s.Properties {
				props[p.Name] = p.Value
			}
			assert.Equal(t, "1", props["seed"])
			assert.Equal(t, fmt.Sprint(want[s.Name].Score), props["score"], s.Name)
		}
	})

	t.Run("the Markdown summary has a badge per target and replay commands", func(t *testing.T) {
		md := readFile(t, filepath.Join(dir, "report.md"))
		assert.Contains(t, md, "| correct | http | **score 3/3** | 0 | - |")
		assert.Contains(t, md, "| nokey | http | **score 0/3** |")
		assert.Contains(t, md, "   idemcheck demo --seed 1\n")
	})

	t.Run("report re-scores the saved result to the same verdicts", func(t *testing.T) {
		out2 := t.TempDir()
		code, out, errs := runCLI(t, ctx, "report", "--format", "json,html", "--out", out2, filepath.Join(dir, "result.json"))
		assert.Equal(t, exitBelow, code, "reference targets with critical findings fail the gate, as run would: %s", errs)
		assert.Equal(t, verdictsOf(t, reportJSON), verdictsOf(t, out))
		assert.Equal(t, out, readFile(t, filepath.Join(out2, "report.json")))
		_, err := os.Stat(filepath.Join(out2, "result.json"))
		assert.NoError(t, err, "the merged result is saved too")
	})

	t.Run("the HTML report in a real browser", func(t *testing.T) {
		checkHTMLInChromium(t, filepath.Join(dir, "report.html"), verdictsOf(t, reportJSON))
	})
}

// findChromium returns the first Chromium-like browser in PATH.
func findChromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// pageFacts is what the test reads from the rendered page.
type pageFacts struct {
	Targets, Matrices, Timelines, Bars, Marks int
	ScrollWidth, InnerWidth                   int
	Scores                                    map[string]string
	Verdict                                   string
	LostIntentCell                            bool
	TimelineHeight                            float64
	StepLists                                 int
}

const pageFactsJS = `(() => {
  const q = s => document.querySelectorAll(s).length;
  const scores = {};
  document.querySelectorAll('section.target').forEach(s => { scores[s.dataset.target] = s.querySelector('.score.big').dataset.score; });
  const tl = document.querySelector('details[open] svg.timeline');
  return {
    Targets: q('section.target'), Matrices: q('table.matrix'), Timelines: q('svg.timeline'),
    Bars: q('svg.timeline g.attempt rect'), Marks: q('svg.timeline polygon.effect'),
    ScrollWidth: document.documentElement.scrollWidth, InnerWidth: window.innerWidth,
    Scores: scores, Verdict: document.getElementById('verdict').textContent,
    LostIntentCell: !!document.querySelector('section[data-target="mark-first"] tr[data-check="exactly-once"] td.c-fail'),
    TimelineHeight: tl ? tl.getBoundingClientRect().height : 0,
    StepLists: q('ol.steps'),
  };
})()`

// checkHTMLInChromium loads the report from disk in headless Chromium,
// checks what a reader needs is there (and that nothing is fetched), and
// saves screenshots.
func checkHTMLInChromium(t *testing.T, page string, want map[string]verdicts) {
	exe := findChromium()
	if exe == "" {
		t.Skip("no Chromium in PATH (looked for chromium, chromium-browser, google-chrome, google-chrome-stable): the HTML report is not checked in a browser; .ci/run installs chromium")
	}
	// The browser must not carry this test binary's tag: its helpers may
	// outlive it for a moment, and they are not targets left behind.
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, strings.SplitN(testTag, "=", 2)[0]+"=") {
			env = append(env, kv)
		}
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox, // Chromium refuses to run as root with its sandbox
		chromedp.DisableGPU,
		chromedp.WindowSize(1366, 768), // a laptop screen
		chromedp.NoInheritEnv, chromedp.Env(env...),
	)
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	var mu sync.Mutex
	var requested []string
	bctx, cancelBrowser := chromedp.NewContext(actx, chromedp.WithListener(func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok {
			mu.Lock()
			requested = append(requested, e.Request.URL)
			mu.Unlock()
		}
	}))
	defer cancelBrowser()

	url := "file://" + page
	require.NoError(t, chromedp.Do(bctx, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS("#overview"))))
	facts, err := chromedp.Run(bctx, chromedp.Evaluate[pageFacts](pageFactsJS))
	require.NoError(t, err)

	assert.Equal(t, len(want), facts.Targets, "a section per target")
	assert.Equal(t, len(want), facts.Matrices, "a check × fault matrix per target")
	assert.Positive(t, facts.Timelines, "at least one timeline")
	assert.Positive(t, facts.Bars, "attempts drawn as bars")
	assert.Positive(t, facts.Marks, "effects drawn as marks")
	assert.Positive(t, facts.StepLists, "counterexamples as step lists")
	assert.Greater(t, facts.TimelineHeight, 60.0, "an open finding's timeline is drawn at a readable size")
	for name, v := range want {
		assert.Equal(t, fmt.Sprintf("%d/3", v.Score), facts.Scores[name], "%s's score", name)
	}
	assert.True(t, facts.LostIntentCell, "mark-first's exactly-once row has a failed cell")
	assert.Contains(t, facts.Verdict, "PASS: every reference target got the score it was built for", "the demo's verdict")
	assert.LessOrEqual(t, facts.ScrollWidth, facts.InnerWidth, "no horizontal scrolling on a 1366px-wide screen")

	top, err := chromedp.Run(bctx, chromedp.CaptureScreenshot())
	require.NoError(t, err)
	section, err := chromedp.Run(bctx, chromedp.Screenshot(chromedp.CSS(`section[data-target="mark-first"]`)))
	require.NoError(t, err)

	// The inline script: "expand all" opens every finding of a target.
	open := `document.querySelectorAll('section[data-target="nokey"] details.finding:not([open])').length`
	require.NoError(t, chromedp.Do(bctx, chromedp.Click(chromedp.CSS(`section[data-target="nokey"] button[data-toggle="open"]`))))
	closed, err := chromedp.Run(bctx, chromedp.Evaluate[int](open))
	require.NoError(t, err)
	assert.Zero(t, closed, "expand all opened every finding")

	dirs := []string{t.TempDir()}
	if *screenshots != "" {
		require.NoError(t, os.MkdirAll(*screenshots, 0o755))
		dirs = append(dirs, *screenshots)
	}
	for _, d := range dirs {
		require.NoError(t, os.WriteFile(filepath.Join(d, "report-top.png"), top, 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(d, "report-mark-first.png"), section, 0o644))
	}
	t.Logf("screenshots: %s", strings.Join(dirs, ", "))
	assert.Equal(t, "\x89PNG", string(top[:4]))

	mu.Lock()
	defer mu.Unlock()
	require.NotEmpty(t, requested, "the listener saw the page load")
	for _, u := range requested {
		assert.True(t, strings.HasPrefix(u, "file://") || strings.HasPrefix(u, "data:"), "the report fetched %s: it must be self-contained", u)
	}
}

// shardConfig runs reference targets whose verdicts do not depend on
// timing, so that a sharded run must say exactly what the whole run says.
// None of them forgets a key with time: the late retries come at once.
func shardConfig(t *testing.T) string {
	return writeConfigWith(t, "retry: {late_delay: 1ms}\n", "correct", "mark-first", "mismatch", "nodryrun")
}

// TestShardsMergeToTheWholeRun runs one configuration whole and in three
// shards (each to its own --out), merges the shards' result.json with
// idemcheck report, and checks that the merged report makes the whole
// run's verdicts.
func TestShardsMergeToTheWholeRun(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	cfg := shardConfig(t)
	code, whole, errs := runCLI(t, ctx, "run", "-c", cfg, "--trials", "0", "--seed", "5", "--format", "json", "--quiet")
	require.Equal(t, exitBelow, code, "mark-first loses an intent: %s", errs)

	var results []string
	for i := 1; i <= 3; i++ {
		dir := t.TempDir()
		code, _, errs := runCLI(t, ctx, "run", "-c", cfg, "--trials", "0", "--seed", "5", "--shard", fmt.Sprintf("%d/3", i), "--format", "json", "--out", dir, "--quiet")
		require.Contains(t, []int{exitOK, exitBelow}, code, errs)
		var res record.Result
		require.NoError(t, json.Unmarshal([]byte(readFile(t, filepath.Join(dir, "result.json"))), &res))
		assert.Equal(t, fmt.Sprintf("%d/3", i), res.Meta.Shard)
		assert.Equal(t, "run", res.Meta.Command)
		assert.Equal(t, cfg, res.Meta.Config)
		sum := sha256.Sum256([]byte(readFile(t, cfg)))
		assert.Equal(t, hex.EncodeToString(sum[:]), res.Meta.ConfigDigest)
		results = append(results, filepath.Join(dir, "result.json"))
	}
	requireNoTargetsLeft(t)
	// In any order: merging sorts the intents back into the planned order.
	code, merged, errs := runCLI(t, ctx, "report", "--format", "json", "--quiet", results[2], results[0], results[1])
	require.Equal(t, exitBelow, code, "the merged run fails the gate as the whole run did: %s", errs)
	assert.NoError(t, schema.ValidateReport([]byte(merged)))
	assert.Equal(t, verdictsOf(t, whole), verdictsOf(t, merged))
	var rep reports.Report
	require.NoError(t, json.Unmarshal([]byte(merged), &rep))
	assert.Empty(t, rep.Meta.Shard, "the merged report is the whole run")
	var w reports.Report
	require.NoError(t, json.Unmarshal([]byte(whole), &w))
	assert.Equal(t, w.Summary.Intents, rep.Summary.Intents, "every intent is in exactly one shard")
}

// fixtureResult is a real run's saved result (reports/testdata): three
// reference targets — mark-first (score 0, a critical finding), mismatch
// (score 2, a minor one), unstable-replay (score 1) — and one that could
// not be started.
func fixtureResult(t *testing.T, keep ...string) *record.Result {
	t.Helper()
	var res record.Result
	require.NoError(t, json.Unmarshal([]byte(readFile(t, filepath.Join("..", "..", "reports", "testdata", "result.json"))), &res))
	if keep != nil {
		var ts []record.TargetResult
		for _, tr := range res.Targets {
			for _, k := range keep {
				if tr.Name == k {
					ts = append(ts, tr)
				}
			}
		}
		res.Targets = ts
	}
	return &res
}

func writeResult(t *testing.T, dir, name string, res *record.Result) string {
	t.Helper()
	b, err := json.Marshal(res)
	require.NoError(t, err)
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, b, 0o644))
	return p
}

// TestReportExitCodes: report exits as run would have on the same result.
func TestReportExitCodes(t *testing.T) {
	dir := t.TempDir()
	all := writeResult(t, dir, "all.json", fixtureResult(t))
	tested := writeResult(t, dir, "tested.json", fixtureResult(t, "mark-first", "mismatch", "unstable-replay"))
	mismatch := writeResult(t, dir, "mismatch.json", fixtureResult(t, "mismatch"))
	cases := []struct {
		why  string
		args []string
		code int
		want string
	}{
		{"score 2 meets --min-score 2", []string{mismatch, "--min-score", "2"}, exitOK, ""},
		{"score 2 is below --min-score 3", []string{"--min-score", "3", mismatch}, exitBelow, ""},
		{"score 2 is below the default gate", []string{mismatch}, exitBelow, "mismatch: score 2, below --min-score 3"},
		{"a critical finding fails whatever the gate", []string{tested}, exitBelow, ""},
		{"an untested target is the harness's failure", []string{all}, exitHarness, "could not test down"},
	}
	for _, tc := range cases {
		t.Run(tc.why, func(t *testing.T) {
			args := append([]string{"report", "--quiet", "--format", "md"}, tc.args...)
			code, out, errs := runCLI(t, context.Background(), args...)
			assert.Equal(t, tc.code, code, errs)
			assert.Contains(t, errs, tc.want)
			assert.True(t, strings.HasPrefix(out, "## idemcheck"), "the Markdown report on stdout")
		})
	}
}

// TestReportBadInput: every bad input exits 2 and says which file and
// what is wrong with it.
func TestReportBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
		return p
	}
	shard := func(name string, seed uint64, sh string) string {
		res := fixtureResult(t, "mismatch")
		res.Seed, res.Meta.Shard = seed, sh
		return writeResult(t, dir, name, res)
	}
	whole := writeResult(t, dir, "whole.json", fixtureResult(t, "mismatch"))
	s1, s2 := shard("s1.json", 3, "1/2"), shard("s2.json", 3, "2/2")
	other := shard("other-seed.json", 4, "2/2")
	s1of3 := shard("s1of3.json", 3, "1/3")
	otherConfig := fixtureResult(t, "mismatch")
	otherConfig.Meta.Shard, otherConfig.Meta.ConfigDigest = "2/2", strings.Repeat("0", 64)
	cases := []struct {
		why  string
		args []string
		want []string
	}{
		{"no file", nil, []string{"give at least one RESULT.json"}},
		{"a missing file", []string{filepath.Join(dir, "nope.json")}, []string{"nope.json", "no such file"}},
		{"not JSON", []string{write("text.json", "seed: 1\n")}, []string{"text.json", "not JSON", "line 1, column 1"}},
		{"JSON of the wrong shape", []string{write("shape.json", `{"schema": "idemcheck.result/v1", "seed": "one"}`)}, []string{"shape.json", "not a valid idemcheck.result/v1", "seed"}},
		{"no schema", []string{write("noschema.json", `{"seed": 1}`)}, []string{"noschema.json", `no "schema" field`}},
		{"another schema", []string{write("v9.json", `{"schema": "idemcheck.result/v9"}`)}, []string{"v9.json", `schema "idemcheck.result/v9", expected "idemcheck.result/v1"`}},
		{"a JSON report instead of the result", []string{write("report.json", `{"schema": "idemcheck.report/v1"}`)}, []string{"report.json", "pass the result.json next to it"}},
		{"shards with different seeds", []string{s1, other}, []string{"s1.json (seed 3)", "other-seed.json (seed 4)", "share its seed"}},
		{"shards of different configurations", []string{s1, writeResult(t, dir, "other-config.json", otherConfig)}, []string{"s1.json", "other-config.json", "different configurations"}},
		{"a missing shard", []string{s1}, []string{"shard(s) 2/2 missing"}},
		{"a shard twice", []string{s1, s2, s1}, []string{"s1.json and", "are both shard 1/2"}},
		{"shards of different splits", []string{s1, s1of3}, []string{"s1.json is shard 1/2 but", "s1of3.json is shard 1/3"}},
		{"a whole run among shards", []string{s1, whole}, []string{"whole.json is a whole run"}},
		{"a bad format", []string{"--format", "pdf", s1}, []string{`unknown format "pdf"`, "junit"}},
	}
	for _, tc := range cases {
		t.Run(tc.why, func(t *testing.T) {
			code, out, errs := runCLI(t, context.Background(), append([]string{"report"}, tc.args...)...)
			assert.Equal(t, exitUsage, code, "stdout: %s\nstderr: %s", out, errs)
			for _, w := range tc.want {
				assert.Contains(t, errs, w)
			}
			assert.Empty(t, out, "nothing is rendered from bad input")
		})
	}
}

func TestRunShardAndOnlyFlags(t *testing.T) {
	cfg := writeConfig(t, "correct")
	cases := []struct {
		why  string
		args []string
		want string
	}{
		{"shard zero", []string{"--shard", "0/3"}, "expected 1 ≤ i ≤ n"},
		{"shard beyond n", []string{"--shard", "4/3"}, "expected 1 ≤ i ≤ n"},
		{"no n", []string{"--shard", "1/"}, `"1/" is not i/n`},
		{"words", []string{"--shard", "one/three"}, "is not i/n"},
		{"trailing junk", []string{"--shard", "1/3x"}, "is not i/n"},
		{"a sign", []string{"--shard", "+1/3"}, "is not i/n"},
		{"an unknown check", []string{"--only", "retry.sequential,retry.forever"}, `unknown check "retry.forever"`},
	}
	for _, tc := range cases {
		t.Run(tc.why, func(t *testing.T) {
			code, _, errs := runCLI(t, context.Background(), append([]string{"run", "-c", cfg, "--trials", "0", "--quiet"}, tc.args...)...)
			assert.Equal(t, exitUsage, code)
			assert.Contains(t, errs, tc.want)
		})
	}
	requireNoTargetsLeft(t)
}

// TestRunOnly runs one check: the others are reported skipped, and the
// replay command the report prints for a finding is this very command.
// Its minor finding fails the default gate (3), which forbids it.
func TestRunOnly(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	cfg := writeConfig(t, "mismatch")
	code, out, errs := runCLI(t, ctx, "run", "-c", cfg, "--trials", "0", "--seed", "2", "--only", "key.mismatch", "--format", "json", "--quiet")
	require.Equal(t, exitBelow, code, errs)
	var rep reports.Report
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	require.Len(t, rep.Targets, 1)
	for _, c := range rep.Targets[0].Checks {
		if c.ID == checks.CheckKeyMismatch {
			assert.Equal(t, record.StatusFail, c.Status)
		} else {
			assert.Equal(t, record.StatusSkip, c.Status, c.ID)
		}
	}
	require.NotEmpty(t, rep.Targets[0].Findings)
	assert.Equal(t, fmt.Sprintf("idemcheck run -c %s --seed 2 --only key.mismatch", cfg), rep.Targets[0].Findings[0].Replay)
	requireNoTargetsLeft(t)
}
