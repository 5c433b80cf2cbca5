package harness_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/record"
)

// waitLimit bounds every wait on an event in these tests. It is a deadline
// for a hang, not a timing assertion: each event comes in milliseconds.
const waitLimit = 10 * time.Second

func faultsNamed(t *testing.T, names ...string) []faults.Fault {
	t.Helper()
	reg := faults.Builtin()
	fs := []faults.Fault{} // not nil: nil means the defaults
	for _, n := range names {
		f, err := reg.New(n, nil)
		require.NoError(t, err)
		fs = append(fs, f)
	}
	return fs
}

var (
	crashFaults        = []string{faults.NameCrashBeforeEffect, faults.NameCrashAfterEffect, faults.NameCrashAfterReply}
	downstreamFaults   = []string{faults.NameDownstreamFailBefore, faults.NameDownstreamFailAfter, faults.NameDownstreamResetAfter}
	clientProxyFaults  = []string{faults.NameClientTimeout, faults.NameUnavailableBefore, faults.NameLostResponse, faults.NameReset, faults.NameHang}
	sequentialChecks   = []string{harness.CheckRetrySequential, harness.CheckReplayConsistent, harness.CheckEffectField, harness.CheckExactlyOnce}
	quickOKChecksOnly  = []string{harness.CheckRetrySequential, harness.CheckExactlyOnce}
	defaultFaultsCount = len(harness.DefaultFaultNames)
)

// verifyOne runs Verify on one spec and returns its result.
func verifyOne(t *testing.T, spec harness.Spec, opts ...harness.Option) harness.TargetResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	res, err := harness.Verify(ctx, []harness.Spec{spec}, opts...)
	require.NoError(t, err)
	require.Len(t, res.Targets, 1)
	assert.Equal(t, record.ResultSchema, res.Schema)
	return res.Targets[0]
}

func checkStatuses(tr harness.TargetResult) map[string]record.CheckResult {
	out := map[string]record.CheckResult{}
	for _, c := range tr.Checks {
		out[c.ID] = c
	}
	return out
}

func TestVerifyCorrectShopScores3(t *testing.T) {
	t.Parallel()
	spec, run := shopSpec("shop", shopConfig{})
	tr := verifyOne(t, spec, harness.WithSeed(7))
	require.Empty(t, tr.Error)
	assert.Equal(t, 3, tr.Score.Level, "findings:%s", describe(tr.Findings))
	assert.Empty(t, tr.Findings)
	assert.Nil(t, tr.Score.Next)
	st := checkStatuses(tr)
	for _, id := range allChecks() {
		if id == harness.CheckWebhookSignature || id == harness.CheckWebhookOrder || strings.HasPrefix(id, "mcp.") {
			assert.Equal(t, harness.StatusSkip, st[id].Status, "a shop is no webhook handler, and its operations carry no annotations")
			continue
		}
		if id == harness.CheckKeyScope {
			assert.Equal(t, harness.StatusSkip, st[id].Status, "one mutating operation: no other to send its key to")
			continue
		}
		if id == harness.CheckIETFDraft {
			assert.Equal(t, harness.StatusSkip, st[id].Status, "the shop did not opt into the ietf-draft profile")
			continue
		}
		if id == checks.CheckConsumerRedelivery || id == checks.CheckDependencyRecovery {
			assert.Equal(t, harness.StatusSkip, st[id].Status, "the shop is no queue consumer and declares no dependency")
			continue
		}
		assert.Equal(t, record.StatusPass, st[id].Status, "%s: %s", id, st[id].Note)
	}

	rec := tr.Record
	require.NotNil(t, rec)
	assert.Equal(t, harness.DefaultFaultNames, rec.Faults)
	assert.Empty(t, rec.Unsupported)
	assert.Equal(t, allChecks(), rec.Checks)
	tried := map[string]bool{}
	crashes := 0
	for _, in := range rec.Intents {
		require.NotEmpty(t, in.Attempts, "intent %d", in.ID)
		if f := in.Attempts[0].Fault; f != "" {
			tried[f] = true
		}
		for _, a := range in.Attempts {
			if a.Crashed {
				crashes++
			}
		}
		if in.Role == record.RoleBurst {
			n := 0
			for _, a := range in.Attempts {
				if a.Burst {
					n++
				}
			}
			assert.Equal(t, harness.DefaultBurst, n, "a burst sends DefaultBurst copies")
		}
	}
	assert.Len(t, tried, defaultFaultsCount, "every default fault was tried: %v", tried)
	assert.Equal(t, len(crashFaults), crashes)

	shops, fks := run.started()
	require.Len(t, shops, 1)
	require.Len(t, fks, 1)
	assert.EqualValues(t, len(crashFaults), shops[0].kills.Load())
	assert.EqualValues(t, len(crashFaults), shops[0].restarts.Load())
	assert.EqualValues(t, 1, shops[0].closes.Load(), "the target is closed once")
	assert.True(t, fks[0].closed.Load(), "the fake is closed")
	assert.Equal(t, fks[0].Ledger().Effects(), rec.Ledger, "the record holds the whole ledger")
}

// TestVerifyPlantedFlaws plants one flaw at a time in the shop and asserts
// that the right check catches it, with the right score, and that no other
// check fails. Where a flaw would rightly fail other checks too under some
// faults, the row restricts the faults or checks and says why.
func TestVerifyPlantedFlaws(t *testing.T) {
	tests := []struct {
		why      string
		cfg      shopConfig
		checks   []string // nil: all
		faults   []string // nil: the defaults
		check    string
		severity record.Severity
		level    int
		msg      string
	}{
		{
			why: "ignores keys: the sequential retry charges twice (only the sequential probe's checks, since every fault would duplicate too)",
			cfg: shopConfig{ignoreKeys: true, noDownstreamKey: true},
			checks: append(append([]string{}, sequentialChecks...),
				harness.CheckKeyDistinct, harness.CheckDryRun, harness.CheckSafeReadOnly),
			faults:   []string{},
			check:    harness.CheckRetrySequential,
			severity: record.Critical, level: 0,
			msg: "the key is not honoured",
		},
		{
			why:      "no effect field: every reply hides whether it acted",
			cfg:      shopConfig{noEffectField: true},
			check:    harness.CheckEffectField,
			severity: record.Major, level: 1,
			msg: "carry no effect field",
		},
		{
			why:      "a volatile key store and no key downstream: a crash after the charge or after the reply charges again (crash faults only: the downstream faults would duplicate too)",
			cfg:      shopConfig{volatile: true, noDownstreamKey: true},
			faults:   crashFaults,
			check:    harness.CheckCrashRecovery,
			severity: record.Critical, level: 0,
			msg: "the key store did not survive the crash",
		},
		{
			why:      "an in-progress lock without a lease: retries after a crash are stuck on 409",
			cfg:      shopConfig{noLease: true},
			check:    harness.CheckCrashRecovery,
			severity: record.Major, level: 1,
			msg: "stuck in progress",
		},
		{
			why:      "the downstream call is retried without a key: ambiguous downstream failures charge twice (downstream faults only: a crash would duplicate too)",
			cfg:      shopConfig{downstreamRetry: true, noDownstreamKey: true},
			faults:   downstreamFaults,
			check:    harness.CheckDownstream,
			severity: record.Critical, level: 0,
			msg: "the downstream was given no idempotency key",
		},
		{
			why:      "a racy check-then-claim: a burst charges once per copy (client and proxy faults only: without a downstream key the others would duplicate too)",
			cfg:      shopConfig{racyClaim: true, noDownstreamKey: true},
			faults:   clientProxyFaults,
			check:    harness.CheckConcurrentDuplicates,
			severity: record.Critical, level: 0,
			msg: "claim it atomically",
		},
		{
			why:      "de-duplication by payload: a second key with the same inputs is merged into the first",
			cfg:      shopConfig{payloadDedup: true},
			check:    harness.CheckKeyDistinct,
			severity: record.Critical, level: 0,
			msg: "de-duplicates by payload",
		},
		{
			why:      "a safe operation that charges",
			cfg:      shopConfig{safeCharges: true},
			check:    harness.CheckSafeReadOnly,
			severity: record.Critical, level: 0,
			msg: "balance is declared safe",
		},
		{
			why:      "mark-first: the key is done before the charge, so a failed charge is never retried",
			cfg:      shopConfig{markFirst: true},
			check:    harness.CheckExactlyOnce,
			severity: record.Critical, level: 0,
			msg: "the intent was lost",
		},
	}
	for _, tt := range tests {
		t.Run(tt.why, func(t *testing.T) {
			t.Parallel()
			opts := []harness.Option{harness.WithSeed(11), harness.WithStuckWait(100 * time.Millisecond)}
			if tt.checks != nil {
				opts = append(opts, harness.WithChecks(tt.checks...))
			}
			if tt.faults != nil {
				opts = append(opts, harness.WithFaults(faultsNamed(t, tt.faults...)...))
			}
			spec, _ := shopSpec("shop", tt.cfg)
			tr := verifyOne(t, spec, opts...)
			require.Empty(t, tr.Error)
			st := checkStatuses(tr)
			for _, id := range allChecks() {
				if id == tt.check {
					assert.Equal(t, harness.StatusFail, st[id].Status, "%s must catch it; findings:%s", id, describe(tr.Findings))
				} else {
					assert.NotEqual(t, harness.StatusFail, st[id].Status, "%s must stay quiet; findings:%s", id, describe(tr.Findings))
				}
			}
			require.NotEmpty(t, tr.Findings)
			worst, msg := record.Minor, false
			for _, f := range tr.Findings {
				assert.Equal(t, tt.check, f.Check, f.Message)
				if f.Severity == record.Critical || (f.Severity == record.Major && worst == record.Minor) {
					worst = f.Severity
				}
				msg = msg || strings.Contains(f.Message, tt.msg)
				assert.NotEmpty(t, f.Evidence.Intents, "a finding shows its intents")
			}
			assert.Equal(t, tt.severity, worst)
			assert.True(t, msg, "a finding says %q:%s", tt.msg, describe(tr.Findings))
			assert.Equal(t, tt.level, tr.Score.Level)
			require.NotNil(t, tr.Score.Next)
			assert.Equal(t, tt.check, tr.Score.Next.Check, "the gap names the flaw")
		})
	}
}

// intentView is the part of an intent a seed determines.
type intentView struct {
	ID        int
	Operation string
	Role      record.Role
	Probe     string
	Key       string
	Marker    string
	Inputs    map[string]string
	Related   int
	Fault     string
}

func viewIntents(rec *record.Record) []intentView {
	var out []intentView
	for _, in := range rec.Intents {
		v := intentView{in.ID, in.Operation, in.Role, in.Probe, in.Key, in.Marker, in.Inputs, in.Related, ""}
		if len(in.Attempts) > 0 {
			v.Fault = in.Attempts[0].Fault
		}
		out = append(out, v)
	}
	return out
}

type findingView struct {
	Check     string
	Severity  record.Severity
	Operation string
	Fault     string
	Message   string
}

func viewFindings(fs []record.Finding) []findingView {
	var out []findingView
	for _, f := range fs {
		out = append(out, findingView{f.Check, f.Severity, f.Operation, f.Fault, f.Message})
	}
	return out
}

// TestSafeOperationsJudgedAsReads: reads need no effect field, and a read
// answering 404 is an outcome, not a broken target; a correct shop whose
// safe operation does either still scores 3 with nothing found.
func TestSafeOperationsJudgedAsReads(t *testing.T) {
	t.Parallel()
	for name, cfg := range map[string]shopConfig{
		"a read without an effect field":  {readNoEffect: true},
		"a read that finds nothing (404)": {readNotFound: true},
	} {
		t.Run(name, func(t *testing.T) {
			spec, _ := shopSpec("shop", cfg)
			tr := verifyOne(t, spec, harness.WithSeed(5))
			require.Empty(t, tr.Error)
			assert.Empty(t, tr.Findings, "%v", viewFindings(tr.Findings))
			assert.Equal(t, 3, tr.Score.Level, tr.Score.Reason)
		})
	}
}

func TestVerifyDeterministic(t *testing.T) {
	t.Parallel()
	run := func(seed uint64, opts ...harness.Option) harness.TargetResult {
		spec, _ := shopSpec("shop", shopConfig{markFirst: true})
		tr := verifyOne(t, spec, append([]harness.Option{harness.WithSeed(seed)}, opts...)...)
		require.Empty(t, tr.Error)
		require.NotNil(t, tr.Record)
		return tr
	}
	a, b, c := run(42, harness.WithNonce(7)), run(42, harness.WithNonce(7)), run(43)

	t.Run("the same seed and nonce give the same intents, keys, markers, inputs and findings", func(t *testing.T) {
		assert.Equal(t, viewIntents(a.Record), viewIntents(b.Record))
		require.NotEmpty(t, a.Findings, "mark-first gives findings to compare")
		assert.Equal(t, viewFindings(a.Findings), viewFindings(b.Findings))
		assert.Equal(t, a.Score, b.Score)
	})
	t.Run("the same seed in another run makes the same choices with keys and markers of its own", func(t *testing.T) {
		d := run(42)
		va, vd := viewIntents(a.Record), viewIntents(d.Record)
		require.Len(t, vd, len(va))
		keys := map[string]bool{}
		for _, in := range a.Record.Intents {
			keys[in.Key], keys[in.Marker] = true, true
		}
		delete(keys, "")
		for i := range va {
			assert.False(t, keys[vd[i].Key] || keys[vd[i].Marker], "intent %d: key %s or marker %s of the first run sent again", vd[i].ID, vd[i].Key, vd[i].Marker)
			assert.Equal(t, va[i].Key == "", vd[i].Key == "", "intent %d: keyed in one run only", vd[i].ID)
			va[i].Key, va[i].Marker, vd[i].Key, vd[i].Marker = "", "", "", ""
		}
		assert.Equal(t, va, vd, "every choice but the keys and markers is the seed's")
		assert.Equal(t, a.Score, d.Score)
		assert.Equal(t, len(a.Findings), len(d.Findings))
	})
	t.Run("another seed gives other keys and markers", func(t *testing.T) {
		seen := map[string]bool{}
		for _, in := range a.Record.Intents {
			seen[in.Key], seen[in.Marker] = true, true
		}
		delete(seen, "")
		for _, in := range c.Record.Intents {
			assert.False(t, in.Key != "" && seen[in.Key], "key %s reused across seeds", in.Key)
			assert.False(t, seen[in.Marker], "marker %s reused across seeds", in.Marker)
		}
		assert.Equal(t, len(a.Record.Intents), len(c.Record.Intents), "the seed changes values, not the plan")
	})
}

func TestVerifyWithChecks(t *testing.T) {
	t.Parallel()
	enabled := []string{harness.CheckKeyRequired, harness.CheckKeyMismatch}
	spec, _ := shopSpec("shop", shopConfig{})
	tr := verifyOne(t, spec, harness.WithChecks(enabled...))
	require.Empty(t, tr.Error)
	require.NotNil(t, tr.Record)
	assert.Equal(t, enabled, tr.Record.Checks)
	for _, c := range tr.Checks {
		if slices.Contains(enabled, c.ID) {
			assert.Equal(t, record.StatusPass, c.Status, c.ID)
		} else if c.ID != harness.CheckWebhookSignature && c.ID != harness.CheckWebhookOrder && c.ID != harness.CheckIETFDraft && c.ID != checks.CheckConsumerRedelivery && !strings.HasPrefix(c.ID, "mcp.") {
			assert.Equal(t, record.CheckResult{ID: c.ID, Status: harness.StatusSkip, Note: "disabled"}, c)
		}
	}
	for _, in := range tr.Record.Intents {
		assert.Contains(t, []record.Role{record.RoleNoKey, record.RoleMismatch, record.RolePlain}, in.Role, "only the probes of the enabled checks run")
		assert.Empty(t, in.Attempts[0].Fault, "no fault probe runs")
	}
	assert.Equal(t, 0, tr.Score.Level, "level 1 cannot be shown without its checks")
	require.NotNil(t, tr.Score.Next)
	assert.Equal(t, harness.CheckRetrySequential, tr.Score.Next.Check)
	assert.Equal(t, -1, tr.Score.Next.Finding)
}

// TestMismatchJudgedByAnAnswer: a reused key with another payload is
// judged by the target's answer, not by a failure that came first (a 500
// from a database connection an earlier fault cut): the request is
// retried as a client retries a failure. A target that answers 500 every
// time is still reported.
func TestMismatchJudgedByAnAnswer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		fails   int
		flagged bool
	}{
		{"one 500, then the refusal", 1, false},
		{"two 500s, then the refusal", 2, false},
		{"a 500 every time", -1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			spec, _ := shopSpec("shop", shopConfig{mismatchFails: tc.fails})
			tr := verifyOne(t, spec, harness.WithChecks(harness.CheckKeyMismatch))
			require.Empty(t, tr.Error)
			var flagged []string
			for _, f := range tr.Findings {
				if f.Check == harness.CheckKeyMismatch {
					flagged = append(flagged, f.Message)
				}
			}
			if !tc.flagged {
				assert.Empty(t, flagged)
			} else {
				require.NotEmpty(t, flagged)
				assert.Contains(t, flagged[0], "was answered 500")
			}
			n := 0
			for _, in := range tr.Record.Intents {
				if in.Role != record.RoleMismatch {
					continue
				}
				n++
				last := in.Attempts[len(in.Attempts)-1]
				if tc.flagged {
					assert.Len(t, in.Attempts, harness.DefaultMaxAttempts, "retried as a failure, MaxAttempts in all")
					assert.Equal(t, 500, last.Status)
				} else {
					assert.Len(t, in.Attempts, tc.fails+1, "retried until the answer")
					assert.Equal(t, 422, last.Status)
				}
			}
			assert.Positive(t, n, "the mismatch probe ran")
		})
	}
}

func TestVerifyUnknownCheck(t *testing.T) {
	t.Parallel()
	spec, run := shopSpec("shop", shopConfig{})
	res, err := harness.Verify(context.Background(), []harness.Spec{spec}, harness.WithChecks(harness.CheckRetrySequential, "retry.sequentiel"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"retry.sequentiel"`)
	assert.Nil(t, res)
	shops, fks := run.started()
	assert.Empty(t, shops, "nothing is started for a bad configuration")
	assert.Empty(t, fks)
}

func TestVerifyCancelledBeforeStart(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var specs []harness.Spec
	var runs []*shopRun
	for _, n := range []string{"a", "b", "c"} {
		s, r := shopSpec(n, shopConfig{})
		specs, runs = append(specs, s), append(runs, r)
	}
	res, err := harness.Verify(ctx, specs)
	require.ErrorIs(t, err, context.Canceled)
	require.NotNil(t, res)
	require.Len(t, res.Targets, len(specs))
	for i, tr := range res.Targets {
		assert.Equal(t, specs[i].Name, tr.Name)
		assert.True(t, strings.HasPrefix(tr.Error, "not run: ") || strings.HasPrefix(tr.Error, "interrupted: "), tr.Error)
		shops, fks := runs[i].started()
		for _, s := range shops {
			assert.EqualValues(t, 1, s.closes.Load(), "a started target is closed")
		}
		for _, f := range fks {
			assert.True(t, f.closed.Load(), "a started fake is closed")
		}
	}
	assert.True(t, res.Failed())
}

// interruptDuringFaults runs Verify on the shop and cancels the context
// while the first faulted attempt is in the target (the sequential probe
// has charged by then). It returns the target's result and what it started.
func interruptDuringFaults(t *testing.T) (harness.TargetResult, *shopRun, error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	entered := make(chan struct{})
	var once sync.Once
	spec, run := shopSpec("shop", shopConfig{onCall: func(ctx context.Context, c harness.Call) {
		if c.Fault == nil {
			return
		}
		once.Do(func() { close(entered) })
		<-ctx.Done() // a target that hangs until the client gives up
	}})
	type outcome struct {
		res *record.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := harness.Verify(ctx, []harness.Spec{spec})
		done <- outcome{res, err}
	}()
	select {
	case <-entered:
	case <-time.After(waitLimit):
		t.Fatal("no faulted attempt reached the target")
	}
	cancel()
	var o outcome
	select {
	case o = <-done:
	case <-time.After(waitLimit):
		t.Fatal("Verify did not return after its context was cancelled")
	}
	require.NotNil(t, o.res)
	require.Len(t, o.res.Targets, 1)
	return o.res.Targets[0], run, o.err
}

func TestVerifyCancelledWhileACallHangs(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	tr, run, err := interruptDuringFaults(t)
	require.ErrorIs(t, err, context.Canceled)
	assert.True(t, strings.HasPrefix(tr.Error, "interrupted: "), tr.Error)
	shops, fks := run.started()
	require.Len(t, shops, 1)
	assert.EqualValues(t, 1, shops[0].closes.Load(), "the target is closed")
	require.Len(t, fks, 1)
	assert.True(t, fks[0].closed.Load(), "the fake is closed")

	require.NotNil(t, tr.Record, "an interrupted run keeps what it recorded")
	require.NotEmpty(t, tr.Record.Intents)
	rescored := tr
	rescored.Error = ""
	require.NotPanics(t, func() { checks.Score(&rescored) })
}

// TestVerifyInterruptedRecordKeepsLedger: the record of an interrupted run
// is what idemcheck report re-scores, so it must hold the effects the fakes
// saw; without them every acknowledged intent looks lost.
func TestVerifyInterruptedRecordKeepsLedger(t *testing.T) {
	t.Parallel()
	tr, run, err := interruptDuringFaults(t)
	require.ErrorIs(t, err, context.Canceled)
	require.NotNil(t, tr.Record)
	_, fks := run.started()
	require.Len(t, fks, 1)
	want := fks[0].Ledger().Effects()
	require.NotEmpty(t, want, "the sequential probe charged before the interruption")
	if len(tr.Record.Ledger) == 0 {
		rescored := tr
		checks.Score(&rescored)
		t.Logf("re-scored without the ledger:%s", describe(rescored.Findings))
	}
	assert.Equal(t, want, tr.Record.Ledger)
	rescored := tr
	checks.Score(&rescored)
	for _, f := range rescored.Findings {
		assert.NotEqual(t, harness.CheckExactlyOnce, f.Check, "a correct target's partial record has no lost intent: %s", f.Message)
	}
}

func TestVerifyStartFailures(t *testing.T) {
	t.Parallel()
	failingFake := func(context.Context, *fakes.Ledger) (fakes.Fake, error) {
		return nil, errors.New("payments: listen tcp 127.0.0.1:9999: address already in use")
	}
	tests := []struct {
		why  string
		spec func() (harness.Spec, *shopRun)
		want string
	}{
		{
			why: "the target does not start",
			spec: func() (harness.Spec, *shopRun) {
				return shopSpec("shop", shopConfig{onStart: func(context.Context) error {
					return errors.New("shop: exec: \"shopd\": executable file not found in $PATH")
				}})
			},
			want: `shop: exec: "shopd": executable file not found in $PATH`,
		},
		{
			why: "a fake does not start",
			spec: func() (harness.Spec, *shopRun) {
				s, r := shopSpec("shop", shopConfig{})
				s.Fakes = append(s.Fakes, failingFake)
				return s, r
			},
			want: "cannot start a fake: payments: listen tcp 127.0.0.1:9999: address already in use",
		},
	}
	for _, tt := range tests {
		t.Run(tt.why, func(t *testing.T) {
			spec, run := tt.spec()
			res, err := harness.Verify(context.Background(), []harness.Spec{spec})
			require.NoError(t, err, "a target that cannot be tested is not an error of Verify")
			tr := res.Targets[0]
			assert.Contains(t, tr.Error, tt.want)
			assert.Nil(t, tr.Record)
			assert.True(t, res.Failed())
			shops, fks := run.started()
			assert.Empty(t, shops)
			for _, f := range fks {
				assert.True(t, f.closed.Load(), "the fakes that did start are closed")
			}
		})
	}
}

func TestVerifyPanickingCall(t *testing.T) {
	t.Parallel()
	spec, run := shopSpec("shop", shopConfig{onCall: func(context.Context, harness.Call) {
		panic("the adapter blew up")
	}})
	res, err := harness.Verify(context.Background(), []harness.Spec{spec})
	require.NoError(t, err)
	tr := res.Targets[0]
	assert.Contains(t, tr.Error, "internal error while testing shop")
	assert.Contains(t, tr.Error, "the adapter blew up")
	shops, fks := run.started()
	require.Len(t, shops, 1)
	assert.EqualValues(t, 1, shops[0].closes.Load(), "the target is closed after the panic")
	assert.True(t, fks[0].closed.Load(), "the fake is closed after the panic")
}

func TestVerifyNameWithSlash(t *testing.T) {
	t.Parallel()
	spec, _ := shopSpec("team/shop", shopConfig{})
	tr := verifyOne(t, spec, harness.WithSeed(3))
	assert.Equal(t, "team/shop", tr.Name)
	require.Empty(t, tr.Error)
	assert.Equal(t, 3, tr.Score.Level, "findings:%s", describe(tr.Findings))
}

func TestVerifyResultsInSpecOrder(t *testing.T) {
	t.Parallel()
	names := []string{"delta", "bravo", "charlie", "alpha"}
	lastStarted := make(chan struct{})
	var specs []harness.Spec
	for i, n := range names {
		var cfg shopConfig
		switch i {
		case 0: // the first spec finishes last: it waits for the last one to start
			cfg.onStart = func(ctx context.Context) error {
				select {
				case <-lastStarted:
					return nil
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(waitLimit):
					return errors.New("the last spec never started")
				}
			}
		case len(names) - 1:
			cfg.onStart = func(context.Context) error { close(lastStarted); return nil }
		}
		s, _ := shopSpec(n, cfg)
		specs = append(specs, s)
	}
	res, err := harness.Verify(context.Background(), specs, harness.WithParallel(len(names)), harness.WithChecks(quickOKChecksOnly...))
	require.NoError(t, err)
	require.Len(t, res.Targets, len(names))
	for i, tr := range res.Targets {
		assert.Equal(t, names[i], tr.Name)
		assert.Empty(t, tr.Error)
	}
}

func TestVerifyProgress(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	spec, _ := shopSpec("shop", shopConfig{})
	verifyOne(t, spec, harness.WithProgress(&buf), harness.WithChecks(quickOKChecksOnly...))
	out := buf.String()
	assert.Contains(t, out, "shop: started testing\n")
	assert.Contains(t, out, "shop: score 1, 0 findings (", "level 1 needs only the two enabled checks")
}

// TestVerifyTargetWithoutCrashOrBurst: a target the harness can neither
// crash nor burst skips the checks that need it, and cannot show level 2.
func TestVerifyTargetWithoutCrashOrBurst(t *testing.T) {
	t.Parallel()
	spec, run := shopSpec("shop", shopConfig{plainOnly: true})
	tr := verifyOne(t, spec)
	require.Empty(t, tr.Error)
	assert.Empty(t, tr.Findings)
	st := checkStatuses(tr)
	assert.Equal(t, record.CheckResult{ID: harness.CheckConcurrentDuplicates, Status: harness.StatusSkip, Note: "the adapter cannot send bursts"}, st[harness.CheckConcurrentDuplicates])
	assert.Equal(t, harness.StatusSkip, st[harness.CheckCrashRecovery].Status)
	assert.Equal(t, record.StatusPass, st[harness.CheckRetryAfterFault].Status)
	assert.Equal(t, record.StatusPass, st[harness.CheckDownstream].Status)
	assert.Equal(t, 1, tr.Score.Level)
	require.NotNil(t, tr.Score.Next)
	assert.Equal(t, harness.CheckConcurrentDuplicates, tr.Score.Next.Check)
	assert.Equal(t, -1, tr.Score.Next.Finding)
	shops, _ := run.started()
	assert.Zero(t, shops[0].kills.Load(), "no crash is attempted")

	t.Run("the faults it could not inject are listed", func(t *testing.T) {
		for _, f := range crashFaults {
			assert.True(t, slices.Contains(tr.Record.Unsupported, f), "%s is listed as not injectable", f)
			assert.NotEmpty(t, tr.Record.UnsupportedWhy[f], "%s: the record says why", f)
		}
		assert.Contains(t, st[harness.CheckCrashRecovery].Note, "could not be injected")
	})
}

// TestVerifyBurstWithoutReplies: a Burster that returns no reply (a broken
// adapter) is the target's misbehaviour, not a crash of the harness.
func TestVerifyBurstWithoutReplies(t *testing.T) {
	t.Parallel()
	spec, _ := shopSpec("shop", shopConfig{burstNothing: true})
	tr := verifyOne(t, spec, harness.WithFaults(faultsNamed(t)...))
	if strings.Contains(tr.Error, "internal error") {
	}
	assert.Empty(t, tr.Error)
}

// verifyTarget runs Verify on one spec under ctx (no deadline of its own:
// trials take their time) and returns its result, which must hold no
// error.
func verifyTarget(t *testing.T, ctx context.Context, spec harness.Spec, opts ...harness.Option) harness.TargetResult {
	t.Helper()
	res, err := harness.Verify(ctx, []harness.Spec{spec}, opts...)
	require.NoError(t, err)
	require.Len(t, res.Targets, 1)
	require.Empty(t, res.Targets[0].Error)
	return res.Targets[0]
}

// describe lists findings for failure messages.
func describe(fs []record.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "\n  %s %s: %s", f.Check, f.Severity, f.Message)
	}
	return b.String()
}

// allChecks are the ids of every check, in report order.
func allChecks() []string {
	var ids []string
	for _, c := range harness.Checks() {
		ids = append(ids, c.ID)
	}
	return ids
}

// TestPlannedForMakesTheIntentAgain: every probe's intent names the checks
// that planned it, and a run of the first of them alone, with the same
// seed, makes that intent again: the same probe, operation, role, inputs
// and fault. A finding's replay command (--only) relies on it.
func TestPlannedForMakesTheIntentAgain(t *testing.T) {
	t.Parallel()
	spec, _ := shopSpec("shop", shopConfig{markFirst: true})
	whole := verifyOne(t, spec, harness.WithSeed(5), harness.WithTrials(0))
	require.NotNil(t, whole.Record)
	var faulted *record.Intent
	for i := range whole.Record.Intents {
		in := &whole.Record.Intents[i]
		require.NotEmpty(t, in.PlannedFor, "intent %d (%s)", in.ID, in.Probe)
		if faulted == nil && len(in.Attempts) > 0 && in.Attempts[0].FaultClass == "proxy" {
			faulted = in
		}
	}
	require.NotNil(t, faulted, "a probe under a proxy fault")
	assert.NotContains(t, faulted.PlannedFor, harness.CheckEffectField, "effect.field's own probes are not the faults'")

	spec, _ = shopSpec("shop", shopConfig{markFirst: true})
	alone := verifyOne(t, spec, harness.WithSeed(5), harness.WithTrials(0), harness.WithChecks(faulted.PlannedFor[0]))
	require.NotNil(t, alone.Record)
	var again *record.Intent
	for i := range alone.Record.Intents {
		if in := &alone.Record.Intents[i]; in.Probe == faulted.Probe && in.Operation == faulted.Operation && in.Role == faulted.Role {
			again = in
			break
		}
	}
	require.NotNil(t, again, "%q made again by --only %s", faulted.Probe, faulted.PlannedFor[0])
	assert.Equal(t, faulted.Inputs, again.Inputs)
	assert.Equal(t, faulted.Attempts[0].Fault, again.Attempts[0].Fault)
}
