package checks_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/record"
)

// checkCase is one hand-built record and what every check must say of it.
type checkCase struct {
	why string
	rec *record.Record
	// fail lists each check that must fail, with the severity of every one
	// of its findings, in order. Every check not listed must not fail: it
	// is quiet on this record.
	fail map[string][]record.Severity
	// msgs holds, per check, a substring of each finding's message, in
	// order ("" to skip one).
	msgs map[string][]string
	// pass and skip list checks that must have that verdict.
	pass []string
	skip []string
	// notes holds the expected note of a skipped check.
	notes map[string]string
}

func runCheckCase(t *testing.T, tc checkCase) {
	t.Helper()
	results, found := verdicts(t, tc.rec)
	var all []record.Finding
	for _, id := range allChecks() {
		all = append(all, found[id]...)
	}
	for _, id := range allChecks() {
		want, fails := tc.fail[id]
		got := found[id]
		if !fails {
			assert.NotEqual(t, record.StatusFail, results[id].Status, "%s must stay quiet here; findings:%s", id, describe(got))
			assert.Empty(t, got, "%s must report nothing here", id)
			continue
		}
		assert.Equal(t, record.StatusFail, results[id].Status, "%s must fail; all findings:%s", id, describe(all))
		if !assert.Len(t, got, len(want), "%s must report every violation; findings:%s", id, describe(got)) {
			continue
		}
		for i, sev := range want {
			assert.Equal(t, sev, got[i].Severity, "%s finding %d: %s", id, i, got[i].Message)
			assert.Equal(t, id, got[i].Check)
			assert.NotEmpty(t, got[i].Operation, "a finding names its operation")
			if i < len(tc.msgs[id]) && tc.msgs[id][i] != "" {
				assert.Contains(t, got[i].Message, tc.msgs[id][i], "%s finding %d", id, i)
			}
		}
	}
	for _, id := range tc.pass {
		assert.Equal(t, record.StatusPass, results[id].Status, "%s must pass; note %q; findings:%s", id, results[id].Note, describe(all))
	}
	for _, id := range tc.skip {
		assert.Equal(t, record.StatusSkip, results[id].Status, "%s must be skipped (not applicable); findings:%s", id, describe(all))
	}
	for id, note := range tc.notes {
		assert.Equal(t, note, results[id].Note, "%s's skip note", id)
	}
}

// TestChecks runs, for every check of checks.Checks(), a table with at
// least a violating record, a passing one and one the check does not apply
// to. Rows marked "regression" were bugs once.
func TestChecks(t *testing.T) {
	tables := checkTables()
	for _, c := range checks.Checks() {
		t.Run(c.ID, func(t *testing.T) {
			rows, ok := tables[c.ID]
			require.True(t, ok, "no table for check %s", c.ID)
			var fails, passes, skips bool
			for _, tc := range rows {
				_, f := tc.fail[c.ID]
				fails = fails || f
				passes = passes || contains(tc.pass, c.ID)
				skips = skips || contains(tc.skip, c.ID)
			}
			assert.True(t, fails && passes && skips, "the table of %s needs a violating, a passing and a non-applicable row", c.ID)
			for _, tc := range rows {
				t.Run(tc.why, func(t *testing.T) { runCheckCase(t, tc) })
			}
		})
	}
	assert.Len(t, checks.Checks(), 26)
	assert.Len(t, tables, len(checks.Checks()), "a table for a check that does not exist")
}

func checkTables() map[string][]checkCase {
	return map[string][]checkCase{
		checks.CheckWebhookSignature:     webhookSignatureCases(),
		checks.CheckIETFDraft:            ietfDraftCases(),
		checks.CheckWebhookOrder:         webhookOrderCases(),
		checks.CheckRetrySequential:      retrySequentialCases(),
		checks.CheckRetryAfterFault:      retryAfterFaultCases(),
		checks.CheckRetryLate:            retryLateCases(),
		checks.CheckConcurrentDuplicates: concurrentCases(),
		checks.CheckConcurrentDistinct:   concurrentDistinctCases(),
		checks.CheckCrashRecovery:        crashCases(),
		checks.CheckDownstream:           downstreamCases(),
		checks.CheckDependencyRecovery:   dependencyCases(),
		checks.CheckKeyMismatch:          keyMismatchCases(),
		checks.CheckKeyRequired:          keyRequiredCases(),
		checks.CheckKeyDistinct:          keyDistinctCases(),
		checks.CheckKeyScope:             keyScopeCases(),
		checks.CheckReplayConsistent:     replayCases(),
		checks.CheckReplyHonest:          replyHonestCases(),
		checks.CheckKeyMalformed:         keyMalformedCases(),
		checks.CheckEffectField:          effectFieldCases(),
		checks.CheckDryRun:               dryRunCases(),
		checks.CheckSafeReadOnly:         safeCases(),
		checks.CheckMCPReadOnlyHint:      mcpReadOnlyCases(),
		checks.CheckMCPIdempotentHint:    mcpIdempotentCases(),
		checks.CheckMCPAnnotations:       mcpAnnotationsCases(),
		checks.CheckExactlyOnce:          exactlyOnceCases(),
		checks.CheckConsumerRedelivery:   consumerRedeliveryCases(),
	}
}

func retrySequentialCases() []checkCase {
	return []checkCase{
		{
			why: "an MCP isError answer to the retry of a completed call is shown as isError, not as the status 400 the adapter gives it",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(plain, opCharge)
				b.try(i, ok(200, "created", "ord_1"), mine()).try(i, isErrorReply("already done"))
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckRetrySequential: {major}},
			msgs: map[string][]string{checks.CheckRetrySequential: {"charge: the retry of a completed request was answered isError ("}},
		},
		{
			why:   "an operation that takes no key and says idempotentHint: false: one finding, worded without keys, and the key checks skipped with that reason",
			rec:   keylessRecord(),
			fail:  map[string][]record.Severity{checks.CheckRetrySequential: {critical}},
			msgs:  map[string][]string{checks.CheckRetrySequential: {"charge: calling charge 2 times with the same arguments caused 2 effects (charge ch_000001, charge ch_000002); it takes no key and says idempotentHint: false (seen in 2 intents)"}},
			skip:  []string{checks.CheckKeyRequired, checks.CheckKeyMismatch, checks.CheckKeyMalformed},
			notes: map[string]string{checks.CheckKeyRequired: "not applicable: no mutating operation takes an idempotency key; such operations are judged by what calling them again does, against what their annotations promise"},
		},
		{
			why: "a retry that charged again (critical) and a retry of a completed request answered 409 (major, regression n: 409 is not ok) are both reported",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(plain, opCharge)
				b.try(i, ok(201, "created", "ord_1"), mine()).try(i, ok(201, "created", "ord_2"), mine())
				j := b.intent(plain, opCharge)
				b.try(j, ok(201, "created", "ord_3"), mine()).try(j, failed(409))
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckRetrySequential: {critical, major}},
			msgs: map[string][]string{checks.CheckRetrySequential: {"sent 2 times caused 2 effects", "answered 409"}},
			pass: []string{checks.CheckEffectField, checks.CheckExactlyOnce},
		},
		{
			why:  "created, then a noop replay with the same status and identity",
			rec:  sequentialOK(),
			pass: []string{checks.CheckRetrySequential, checks.CheckReplayConsistent, checks.CheckEffectField, checks.CheckExactlyOnce},
		},
		{
			why: "a single attempt is not a retry",
			rec: func() *record.Record {
				b := newRec()
				b.try(b.intent(plain, opCharge), ok(201, "created", "ord_1"), mine())
				return b.done()
			}(),
			skip: []string{checks.CheckRetrySequential, checks.CheckReplayConsistent},
			pass: []string{checks.CheckExactlyOnce},
		},
		{
			why: "a faulted intent is retry.after-fault's, even when it duplicated",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(plain, opCharge)
				b.try(i, under(faults.NameLostResponse, unknown(503)), mine()).try(i, ok(201, "created", "ord_2"), mine())
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckRetryAfterFault: {critical}},
			skip: []string{checks.CheckRetrySequential},
		},
		{
			why: "a safe operation retried is not a mutating retry",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(plain, opBalance)
				b.try(i, ok(200, "noop", "")).try(i, failed(409))
				return b.done()
			}(),
			skip: []string{checks.CheckRetrySequential, checks.CheckExactlyOnce},
		},
		{
			why: "regression g: a single call that caused 2 effects before a correct noop retry is exactly-once's; retry.sequential stays quiet",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(plain, opCharge)
				b.try(i, ok(201, "created", "ord_1"), mine(), mine()).try(i, ok(201, "noop", "ord_1"))
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckExactlyOnce: {critical}},
			msgs: map[string][]string{checks.CheckExactlyOnce: {"a single call (attempt 1) caused 2 effects"}},
			pass: []string{checks.CheckRetrySequential, checks.CheckEffectField},
		},
		{
			why: "a single call that caused 2 effects and a retry that caused a third: both checks report",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(plain, opCharge)
				b.try(i, ok(201, "created", "ord_1"), mine(), mine()).try(i, ok(201, "created", "ord_2"), mine())
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckExactlyOnce: {critical}, checks.CheckRetrySequential: {critical}},
		},
	}
}

// sequentialOK is a correct sequential retry: created, then a noop replay.
func sequentialOK() *record.Record {
	b := newRec()
	i := b.intent(plain, opCharge)
	b.try(i, ok(201, "created", "ord_1"), mine()).try(i, ok(201, "noop", "ord_1"))
	return b.done()
}

func retryAfterFaultCases() []checkCase {
	return []checkCase{
		{
			why: "regression: a twin (a new key, another intent's inputs) retried after a lost reply that charged again is a duplicate like any keyed intent's; generated trials make such twins",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(plain, opCharge)
				b.try(i, ok(201, "created", "ord_1"), mine())
				tw := b.intent(twin, opCharge, i)
				b.try(tw, under(faults.NameLostResponse, unknown(503)), markedBy(markerOf(tw))).try(tw, ok(201, "created", "ord_3"), markedBy(markerOf(tw)))
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckRetryAfterFault: {critical}},
			msgs: map[string][]string{checks.CheckRetryAfterFault: {"after lost-response, retrying with the same key caused 2 effects"}},
			pass: []string{checks.CheckKeyDistinct},
		},
		{
			why: "the same twin, its retry replayed: one effect of its own, nothing to report",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(plain, opCharge)
				b.try(i, ok(201, "created", "ord_1"), mine())
				tw := b.intent(twin, opCharge, i)
				b.try(tw, under(faults.NameLostResponse, unknown(503)), markedBy(markerOf(tw))).try(tw, ok(201, "noop", "ord_2"))
				return b.done()
			}(),
			pass: []string{checks.CheckRetryAfterFault, checks.CheckKeyDistinct, checks.CheckExactlyOnce},
		},
		{
			why: "a retry after a lost reply that charged again (critical) and an intent that never succeeded after 503-before (major)",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(plain, opCharge)
				b.try(i, under(faults.NameLostResponse, unknown(503)), mine()).try(i, ok(201, "created", "ord_2"), mine())
				j := b.intent(plain, opCharge)
				b.try(j, under(faults.NameUnavailableBefore, notForwarded(unknown(503)))).try(j, unknown(503)).try(j, unknown(503))
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckRetryAfterFault: {critical, major}},
			msgs: map[string][]string{checks.CheckRetryAfterFault: {"after lost-response, retrying with the same key caused 2 effects", "3 attempts with the same key never succeeded"}},
			skip: []string{checks.CheckRetrySequential, checks.CheckCrashRecovery, checks.CheckDownstream, checks.CheckReplayConsistent},
			pass: []string{checks.CheckExactlyOnce, checks.CheckEffectField},
		},
		{
			why: "a request lost under hang, then its key sent with another payload, which the target executed: the original's retries are refused (422), rightly",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(plain, opCharge)
				b.try(i, under(faults.NameHang, notForwarded(unknown(0))))
				m := b.intent(mismatch, opCharge, i)
				b.try(m, ok(201, "created", "ord_1"), markedBy(markerOf(m)))
				b.try(i, failed(422))
				return b.done()
			}(),
			pass: []string{checks.CheckRetryAfterFault, checks.CheckExactlyOnce},
			skip: []string{checks.CheckCrashRecovery, checks.CheckDownstream, checks.CheckRetrySequential},
		},
		{
			why: "the same, but the other payload was refused too: the intent never succeeded",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(plain, opCharge)
				b.try(i, under(faults.NameHang, notForwarded(unknown(0))))
				m := b.intent(mismatch, opCharge, i)
				b.try(m, failed(422))
				b.try(i, failed(422))
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckRetryAfterFault: {major}},
			msgs: map[string][]string{checks.CheckRetryAfterFault: {"2 attempts with the same key never succeeded"}},
			skip: []string{checks.CheckCrashRecovery, checks.CheckDownstream, checks.CheckRetrySequential},
		},
		{
			why: "client class: a timeout after the charge, then a replay",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(plain, opCharge)
				b.try(i, under(faults.NameClientTimeout, unknown(0)), mine()).try(i, ok(201, "noop", "ord_1"))
				return b.done()
			}(),
			pass: []string{checks.CheckRetryAfterFault, checks.CheckEffectField, checks.CheckExactlyOnce},
			skip: []string{checks.CheckCrashRecovery, checks.CheckDownstream, checks.CheckRetrySequential},
		},
		{
			why: "proxy class: a lost reply, then a replay",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(plain, opCharge)
				b.try(i, under(faults.NameLostResponse, unknown(503)), mine()).try(i, ok(201, "noop", "ord_1"))
				return b.done()
			}(),
			pass: []string{checks.CheckRetryAfterFault},
		},
		{
			why: "downstream class (not ambiguous): a clean downstream 503, then a retry that charges",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(plain, opCharge)
				b.try(i, under(faults.NameDownstreamFailBefore, unknown(503))).try(i, ok(201, "created", "ord_1"), mine())
				return b.done()
			}(),
			pass: []string{checks.CheckRetryAfterFault},
			skip: []string{checks.CheckDownstream},
		},
		{
			why: "a duplicate after a clean downstream 503 is retry.after-fault's, not downstream.propagation's",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(plain, opCharge)
				b.try(i, under(faults.NameDownstreamFailBefore, unknown(503)), mine()).try(i, ok(201, "created", "ord_1"), mine())
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckRetryAfterFault: {critical}},
			skip: []string{checks.CheckDownstream},
		},
		{
			why:   "no fault was tried",
			rec:   sequentialOK(),
			skip:  []string{checks.CheckRetryAfterFault, checks.CheckCrashRecovery, checks.CheckDownstream},
			notes: map[string]string{checks.CheckRetryAfterFault: "no fault of its class was tried"},
		},
		{
			why: "the skip note names the faults of its classes the adapter could not inject, those with one reason together, and no other check's",
			rec: func() *record.Record {
				r := sequentialOK()
				r.Faults = []string{faults.NameClientDisconnect, faults.NameReset, faults.NameCrashAfterEffect}
				r.Unsupported = []string{faults.NameClientDisconnect, faults.NameReset, faults.NameCrashAfterEffect}
				r.UnsupportedWhy = map[string]string{faults.NameClientDisconnect: "no fake", faults.NameReset: "no fake", faults.NameCrashAfterEffect: "not started"}
				return r
			}(),
			skip: []string{checks.CheckRetryAfterFault, checks.CheckCrashRecovery, checks.CheckDependencyRecovery},
			notes: map[string]string{
				checks.CheckRetryAfterFault:    "these faults could not be injected into this target: client-disconnect, reset (no fake)",
				checks.CheckCrashRecovery:      "these faults could not be injected into this target: crash-after-effect (not started)",
				checks.CheckDependencyRecovery: "no dependency fault was tried: the target declares no dependency (dependencies:)",
			},
		},
		{
			why: "regression p: a crash-class duplicate is crash.recovery's critical, retry.after-fault does not judge it",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(plain, opCharge)
				b.try(i, under(faults.NameCrashAfterEffect, unknown(0)), mine()).try(i, ok(201, "created", "ord_2"), mine())
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckCrashRecovery: {critical}},
			skip: []string{checks.CheckRetryAfterFault, checks.CheckDownstream},
		},
		{
			why: "regression p: a downstream-ambiguous duplicate is downstream.propagation's critical, retry.after-fault does not judge it",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(plain, opCharge)
				b.try(i, under(faults.NameDownstreamFailAfter, unknown(503)), mine()).try(i, ok(201, "created", "ord_2"), mine())
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckDownstream: {critical}},
			skip: []string{checks.CheckRetryAfterFault, checks.CheckCrashRecovery},
		},
	}
}

func concurrentCases() []checkCase {
	return []checkCase{
		{
			why: "regression q: a burst that charged twice (critical), one answered as two results (major), one that never got an ok (major)",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(burstR, opCharge)
				b.burst(i, []record.Attempt{ok(201, "created", "ord_1"), ok(201, "created", "ord_2"), failed(409)}, mine(), mine())
				j := b.intent(burstR, opCharge)
				b.burst(j, []record.Attempt{ok(201, "created", "ord_3"), ok(201, "noop", "ord_4"), failed(409)}, mine())
				k := b.intent(burstR, opCharge)
				b.burst(k, []record.Attempt{failed(409), failed(409)})
				b.try(k, failed(409))
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckConcurrentDuplicates: {critical, major, major}},
			msgs: map[string][]string{checks.CheckConcurrentDuplicates: {
				"charge: duplicated in 1 of 3 bursts of 3 same-key requests released together (2 effects in all; the worst burst caused 2 effects",
				"in 1 of 3 bursts of 3 same-key requests released together the copies were answered as different results (e.g. ord_3×1, ord_4×1)",
				"after 1 of 3 bursts of 3 same-key requests the intent never completed",
			}},
			pass: []string{checks.CheckExactlyOnce, checks.CheckEffectField},
		},
		{
			why: "a burst answered as two results by a target whose replays one at a time name a new result: replay.consistent's finding alone, whatever timing let copies come after the first",
			rec: func() *record.Record {
				b := newRec()
				s := b.intent(plain, opCharge)
				b.try(s, ok(201, "created", "ord_1"), mine())
				b.try(s, ok(201, "noop", "ord_2"))
				j := b.intent(burstR, opCharge)
				b.burst(j, []record.Attempt{ok(201, "created", "ord_3"), ok(201, "noop", "ord_4"), failed(409)}, mine())
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckReplayConsistent: {major}},
			pass: []string{checks.CheckConcurrentDuplicates},
		},
		{
			why: "several bursts of one operation: one finding that gives the rate, the worst burst as the example",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(burstR, opCharge)
				b.burst(i, []record.Attempt{ok(201, "created", "ord_1"), ok(201, "created", "ord_2")}, mine(), mine())
				j := b.intent(burstR, opCharge)
				b.burst(j, []record.Attempt{ok(201, "created", "ord_3"), failed(409)}, mine())
				b.try(j, ok(201, "noop", "ord_3"))
				k := b.intent(burstR, opCharge)
				b.burst(k, []record.Attempt{ok(201, "created", "ord_4"), ok(201, "created", "ord_5"), ok(201, "created", "ord_6")}, mine(), mine(), mine())
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckConcurrentDuplicates: {critical}},
			msgs: map[string][]string{checks.CheckConcurrentDuplicates: {
				"charge: duplicated in 2 of 3 bursts of 3 same-key requests released together (5 effects in all; the worst burst caused 3 effects",
			}},
		},
		{
			why: "regression a: burst copies share one ledger window; a copy that says noop while another acted is not an effect.field finding",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(burstR, opCharge)
				b.burst(i, []record.Attempt{ok(201, "noop", "ord_1"), ok(201, "created", "ord_1"), failed(409)}, mine())
				b.try(i, ok(201, "noop", "ord_1"))
				return b.done()
			}(),
			pass: []string{checks.CheckConcurrentDuplicates, checks.CheckEffectField, checks.CheckExactlyOnce},
		},
		{
			why: "an attempt the caller stopped waiting for may still be acting: its second effect (an email after the row) recorded during the retry that says noop is no effect.field finding",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(plain, opCharge)
				gone := unknown(0)
				gone.Fault, gone.FaultClass = "client-disconnect", string(faults.ClassProxy)
				b.try(i, gone, mine())
				b.try(i, ok(200, "noop", "ord_1"), emailed(""))
				return b.done()
			}(),
			pass: []string{checks.CheckEffectField},
		},
		{
			why: "a failure the target answered (exit 1) is no attempt still acting: the email recorded during the retry that says noop is the retry's own",
			rec: func() *record.Record {
				b := newRec()
				b.rec.Target.Kind = "cli"
				i := b.intent(plain, opCharge)
				exited := failed(1)
				exited.Outcome, exited.Error = record.Info, "exit 1: email refused"
				b.try(i, exited, mine())
				b.try(i, ok(200, "noop", "ord_1"), emailed(""))
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckEffectField: {major}, checks.CheckReplyHonest: {major}},
		},
		{
			why: "after a timeout, an effect of a kind already made before the retry is a duplicate the retry made: its noop is still wrong",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(plain, opCharge)
				gone := unknown(0)
				gone.Fault, gone.FaultClass, gone.TimedOut = "client-timeout", string(faults.ClassClient), true
				b.try(i, gone, mine())
				b.try(i, ok(200, "noop", "ord_1"), mine())
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckEffectField: {major}, checks.CheckRetryAfterFault: {critical}},
		},
		{
			why: "once the earlier attempt was answered, an effect recorded during a retry that says noop is the retry's own: effect.field's finding",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(plain, opCharge)
				b.try(i, ok(201, "created", "ord_1"), mine())
				b.try(i, ok(201, "noop", "ord_1"), emailed(""))
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckEffectField: {major}},
		},
		{
			why: "a retry after the burst that says created when the burst already acted is still wrong",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(burstR, opCharge)
				b.burst(i, []record.Attempt{ok(201, "created", "ord_1"), failed(409)}, mine())
				b.try(i, ok(201, "created", "ord_1"))
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckEffectField: {major}},
			pass: []string{checks.CheckConcurrentDuplicates},
		},
		{
			why: "regression f: an acknowledged burst with no effect is exactly-once's critical (lost); concurrent.duplicates stays quiet",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(burstR, opCharge)
				b.burst(i, []record.Attempt{ok(201, "created", "ord_1"), failed(409)})
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckExactlyOnce: {critical}},
			msgs: map[string][]string{checks.CheckExactlyOnce: {"the intent was lost"}},
			pass: []string{checks.CheckConcurrentDuplicates},
		},
		{
			why:   "no burst was sent",
			rec:   sequentialOK(),
			skip:  []string{checks.CheckConcurrentDuplicates},
			notes: map[string]string{checks.CheckConcurrentDuplicates: "the adapter cannot send bursts"},
		},
	}
}

func crashCases() []checkCase {
	return []checkCase{
		{
			why: "after a crash: a duplicate (critical), retries stuck on 409 (major, regression p), retries that never succeeded (major)",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(plain, opCharge)
				b.try(i, under(faults.NameCrashAfterEffect, unknown(0)), mine()).try(i, ok(201, "created", "ord_2"), mine())
				j := b.intent(plain, opCharge)
				b.try(j, under(faults.NameCrashBeforeEffect, unknown(0))).try(j, failed(409)).try(j, failed(409)).try(j, failed(409))
				k := b.intent(plain, opCharge)
				b.try(k, under(faults.NameCrashAfterReply, unknown(0)), mine()).try(k, unknown(500)).try(k, unknown(500))
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckCrashRecovery: {critical, major, major}},
			msgs: map[string][]string{checks.CheckCrashRecovery: {
				"after crash-after-effect and a restart, retrying with the same key caused 2 effects",
				"stuck in progress: after crash-before-effect and a restart, the key was answered 409 for 0s (3 retries): an in-progress record outlived the process that held it: take it over once that process is gone, or give it a lease shorter than a client keeps retrying (retry.stuck_wait)",
				"after crash-after-reply and a restart, its effect was made (charge ch_000003), but 2 retries with the same key over 0s never succeeded (info (crash-after-reply), 500, 500): the caller is told the intent failed though it was done",
			}},
			skip: []string{checks.CheckRetryAfterFault, checks.CheckDownstream},
			pass: []string{checks.CheckExactlyOnce, checks.CheckEffectField},
		},
		{
			why: "a crash after the charge, then a retry that the downstream de-duplicated",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(plain, opCharge)
				b.try(i, under(faults.NameCrashAfterEffect, unknown(0)), keyed("idk-0001")).try(i, ok(201, "created", "ord_1"))
				return b.done()
			}(),
			pass: []string{checks.CheckCrashRecovery, checks.CheckExactlyOnce, checks.CheckEffectField},
			skip: []string{checks.CheckRetryAfterFault},
		},
		{
			why:  "no crash was tried",
			rec:  sequentialOK(),
			skip: []string{checks.CheckCrashRecovery},
		},
		{
			why: "a crash intent on a safe operation is not judged",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(plain, opBalance)
				b.try(i, under(faults.NameCrashBeforeEffect, unknown(0))).try(i, failed(409))
				return b.done()
			}(),
			skip: []string{checks.CheckCrashRecovery},
		},
	}
}

func downstreamCases() []checkCase {
	return []checkCase{
		{
			why: "regression: a charge made twice is diagnosed from the charges' keys, not from the key its one email was sent with",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(plain, opCharge)
				b.try(i, under(faults.NameDownstreamFailAfter, unknown(503)), keyed("")).try(i, ok(201, "created", "ord_1"), keyed(""), keyed("email:idk-0001"))
				email := &b.rec.Ledger[len(b.rec.Ledger)-1]
				email.Fake, email.Kind = "email", "email"
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckDownstream: {critical}},
			msgs: map[string][]string{checks.CheckDownstream: {"the payments charge was made 2 times: the payments charge request was given no idempotency key"}},
			skip: []string{checks.CheckRetryAfterFault, checks.CheckCrashRecovery},
		},
		{
			why: "regression p: duplicates after ambiguous downstream failures, diagnosed from the keys the downstream saw, and an intent that never succeeded",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(plain, opCharge)
				b.try(i, under(faults.NameDownstreamFailAfter, ok(201, "created", "ord_1")), keyed(""), keyed(""))
				j := b.intent(plain, opCharge)
				b.try(j, under(faults.NameDownstreamFailAfter, unknown(503)), keyed("k-a")).try(j, ok(201, "created", "ord_2"), keyed("k-b"))
				k := b.intent(plain, opCharge)
				b.try(k, under(faults.NameDownstreamResetAfter, unknown(502)), keyed("idk-0003")).try(k, ok(201, "created", "ord_3"), keyed("idk-0003"))
				l := b.intent(plain, opCharge)
				b.try(l, under(faults.NameDownstreamTimeoutAfter, unknown(504))).try(l, unknown(503)).try(l, unknown(503))
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckDownstream: {critical, critical, critical, major}},
			msgs: map[string][]string{checks.CheckDownstream: {
				"no idempotency key",
				"a different key on each try (k-a, k-b)",
				"the same key (idk-0003) but did not de-duplicate",
				"3 attempts with the same key never succeeded",
			}},
			skip: []string{checks.CheckRetryAfterFault, checks.CheckCrashRecovery},
			pass: []string{checks.CheckExactlyOnce, checks.CheckEffectField},
		},
		{
			why: "an ambiguous downstream failure, then a retry the downstream de-duplicated by key",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(plain, opCharge)
				b.try(i, under(faults.NameDownstreamFailAfter, unknown(503)), keyed("idk-0001")).try(i, ok(201, "created", "ord_1"))
				return b.done()
			}(),
			pass: []string{checks.CheckDownstream, checks.CheckEffectField, checks.CheckExactlyOnce},
		},
		{
			why:  "no ambiguous downstream failure was tried",
			rec:  sequentialOK(),
			skip: []string{checks.CheckDownstream},
		},
	}
}

func keyMismatchCases() []checkCase {
	return []checkCase{
		{
			why: "a reused key with another payload executed, silently replayed, accepted, answered 500: each reported; a 422 is fine",
			rec: func() *record.Record {
				b := newRec()
				o1 := b.intent(plain, opCharge)
				b.try(o1, ok(201, "created", "ord_1"), mine())
				b.try(b.intent(mismatch, opCharge, o1), ok(201, "created", "ord_2"), mine())
				o2 := b.intent(plain, opCharge)
				b.try(o2, ok(201, "created", "ord_3"), mine())
				b.try(b.intent(mismatch, opCharge, o2), ok(201, "noop", "ord_3"))
				o3 := b.intent(plain, opCharge)
				b.try(o3, ok(201, "created", "ord_4"), mine())
				b.try(b.intent(mismatch, opCharge, o3), ok(200, "noop", ""))
				o4 := b.intent(plain, opCharge)
				b.try(o4, ok(201, "created", "ord_5"), mine())
				b.try(b.intent(mismatch, opCharge, o4), unknown(500))
				o5 := b.intent(plain, opCharge)
				b.try(o5, ok(201, "created", "ord_6"), mine())
				b.try(b.intent(mismatch, opCharge, o5), failed(422))
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckKeyMismatch: {minor, minor, minor, minor}},
			msgs: map[string][]string{checks.CheckKeyMismatch: {
				"was executed (charge ch_000002)",
				"silently replayed the first request's result (ord_3)",
				"was accepted (200)",
				"was answered 500",
			}},
			pass: []string{checks.CheckExactlyOnce, checks.CheckEffectField},
		},
		{
			why: "regression l: an accepted mismatch is key.mismatch's finding only",
			rec: func() *record.Record {
				b := newRec()
				o := b.intent(plain, opCharge)
				b.try(o, ok(201, "created", "ord_1"), mine())
				b.try(b.intent(mismatch, opCharge, o), ok(201, "created", "ord_1"))
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckKeyMismatch: {minor}},
		},
		{
			why: "a reused key with another payload rejected with 422",
			rec: func() *record.Record {
				b := newRec()
				o := b.intent(plain, opCharge)
				b.try(o, ok(201, "created", "ord_1"), mine())
				b.try(b.intent(mismatch, opCharge, o), failed(422))
				return b.done()
			}(),
			pass: []string{checks.CheckKeyMismatch},
		},
		{
			why: "a mismatch refused with 422, then retried under a crash that lost the reply: judged by the refusal",
			rec: func() *record.Record {
				b := newRec()
				o := b.intent(plain, opCharge)
				b.try(o, ok(201, "created", "ord_1"), mine())
				m := b.intent(mismatch, opCharge, o)
				b.try(m, failed(422))
				b.try(m, under("crash-after-reply", unknown(0)))
				return b.done()
			}(),
			pass: []string{checks.CheckKeyMismatch},
		},
		{
			why: "a mismatch refused with 422, then accepted on a retry: reported",
			rec: func() *record.Record {
				b := newRec()
				o := b.intent(plain, opCharge)
				b.try(o, ok(201, "created", "ord_1"), mine())
				m := b.intent(mismatch, opCharge, o)
				b.try(m, failed(422))
				b.try(m, ok(201, "noop", "ord_1"))
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckKeyMismatch: {minor}},
			msgs: map[string][]string{checks.CheckKeyMismatch: {"silently replayed the first request's result (ord_1)"}},
		},
		{
			why:   "no key was reused",
			rec:   sequentialOK(),
			skip:  []string{checks.CheckKeyMismatch},
			notes: map[string]string{checks.CheckKeyMismatch: "no mutating operation has inputs to vary"},
		},
	}
}

func keyRequiredCases() []checkCase {
	return []checkCase{
		{
			why: "regression j: a keyless call executed twice that says created twice: key.required fails, effect.field is quiet",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(noKey, opCharge)
				b.try(i, ok(201, "created", "ord_1"), mine()).try(i, ok(201, "created", "ord_2"), mine())
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckKeyRequired: {minor}},
			msgs: map[string][]string{checks.CheckKeyRequired: {"2 calls without an idempotency key were accepted and caused 2 effects"}},
			pass: []string{checks.CheckEffectField, checks.CheckExactlyOnce},
		},
		{
			why: "keyless calls refused with 400",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(noKey, opCharge)
				b.try(i, failed(400)).try(i, failed(400))
				return b.done()
			}(),
			pass: []string{checks.CheckKeyRequired, checks.CheckExactlyOnce},
		},
		{
			why: "keyless calls de-duplicated by the framework",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(noKey, opCharge)
				b.try(i, ok(201, "created", "ord_1"), mine()).try(i, ok(201, "noop", "ord_1"))
				return b.done()
			}(),
			pass: []string{checks.CheckKeyRequired, checks.CheckReplayConsistent, checks.CheckEffectField},
		},
		{
			why: "regression e: keyless calls acknowledged (201 created) with no effect are exactly-once's critical (lost)",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(noKey, opCharge)
				b.try(i, ok(201, "created", "")).try(i, ok(201, "created", ""))
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckExactlyOnce: {critical}},
			msgs: map[string][]string{checks.CheckExactlyOnce: {`acknowledged (201, effect "created") but no side effect was recorded`}},
			pass: []string{checks.CheckKeyRequired},
		},
		{
			why:  "no keyless call was made",
			rec:  sequentialOK(),
			skip: []string{checks.CheckKeyRequired},
		},
	}
}

func keyDistinctCases() []checkCase {
	return []checkCase{
		{
			why: "regression k: a twin merged into its origin is key.distinct's critical, not exactly-once's",
			rec: func() *record.Record {
				b := newRec()
				o := b.intent(plain, opCharge)
				b.try(o, ok(201, "created", "ord_1"), mine())
				b.try(b.intent(twin, opCharge, o), ok(201, "noop", "ord_1"))
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckKeyDistinct: {critical}},
			msgs: map[string][]string{checks.CheckKeyDistinct: {"merged into one effect (both answered with ord_1)"}},
			pass: []string{checks.CheckExactlyOnce},
		},
		{
			why: "regression: a twin lost to its own fault (a consumer acknowledged it, nothing was charged) is exactly-once's loss, not a merge",
			rec: func() *record.Record {
				b := newRec()
				o := b.intent(plain, opCharge)
				b.try(o, ok(0, "", ""), mine())
				tw := b.intent(twin, opCharge, o)
				// Acknowledged under the failed downstream call, as an
				// ack-first consumer does.
				b.try(tw, under(faults.NameDownstreamFailBefore, ok(0, "", "")))
				return b.done()
			}(),
			// Replies without an effect field, as a consumer's are.
			fail: map[string][]record.Severity{checks.CheckExactlyOnce: {critical}},
			msgs: map[string][]string{checks.CheckExactlyOnce: {"no side effect was recorded: the intent was lost after downstream-503"}},
			pass: []string{checks.CheckKeyDistinct},
		},
		{
			why: "a twin whose reply was lost (the request was handled) and whose retry was acknowledged without an effect, no identity to compare, is merged: the fault explains no missing effect",
			rec: func() *record.Record {
				b := newRec()
				o := b.intent(plain, opCharge)
				b.try(o, ok(0, "", ""), mine())
				tw := b.intent(twin, opCharge, o)
				b.try(tw, under(faults.NameLostResponse, unknown(0))).try(tw, ok(0, "", ""))
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckKeyDistinct: {critical}},
			msgs: map[string][]string{checks.CheckKeyDistinct: {"merged into one effect"}},
			pass: []string{checks.CheckExactlyOnce},
		},
		{
			why: "a twin answered with its origin's result under a fault is merged all the same",
			rec: func() *record.Record {
				b := newRec()
				o := b.intent(plain, opCharge)
				b.try(o, ok(201, "created", "ord_1"), mine())
				tw := b.intent(twin, opCharge, o)
				b.try(tw, under(faults.NameDownstreamFailBefore, unknown(503))).try(tw, ok(201, "noop", "ord_1"))
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckKeyDistinct: {critical}},
			msgs: map[string][]string{checks.CheckKeyDistinct: {"merged into one effect (both answered with ord_1)"}},
			pass: []string{checks.CheckExactlyOnce},
		},
		{
			why: "two distinct keys with identical inputs, two effects",
			rec: func() *record.Record {
				b := newRec()
				o := b.intent(plain, opCharge)
				b.try(o, ok(201, "created", "ord_1"), mine())
				b.try(b.intent(twin, opCharge, o), ok(201, "created", "ord_2"), mine())
				return b.done()
			}(),
			pass: []string{checks.CheckKeyDistinct, checks.CheckExactlyOnce},
		},
		{
			why: "regression: a new key with the payload of a step that reused a key with a changed payload (silently replayed, no effect) is no payload de-duplication",
			rec: func() *record.Record {
				b := newRec()
				o := b.intent(plain, opCharge)
				b.try(o, ok(201, "created", "ord_1"), mine())
				m := b.intent(mismatch, opCharge, o)
				b.try(m, ok(201, "created", "ord_1"))
				b.try(b.intent(twin, opCharge, m), ok(201, "created", "ord_2"), mine())
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckKeyMismatch: {minor}},
			pass: []string{checks.CheckKeyDistinct},
		},
		{
			why: "an origin that was never acknowledged cannot show a merge",
			rec: func() *record.Record {
				b := newRec()
				o := b.intent(plain, opCharge)
				b.try(o, failed(400))
				b.try(b.intent(twin, opCharge, o), ok(201, "created", "ord_2"), mine())
				return b.done()
			}(),
			pass: []string{checks.CheckKeyDistinct},
		},
		{
			why:  "no twin was sent",
			rec:  sequentialOK(),
			skip: []string{checks.CheckKeyDistinct},
		},
	}
}

func replayCases() []checkCase {
	return []checkCase{
		{
			why: "replays that changed the status, the identity, and a keyless framework replay that changed the status: each reported",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(plain, opCharge)
				b.try(i, ok(201, "created", "ord_1"), mine()).try(i, ok(200, "noop", "ord_1"))
				j := b.intent(plain, opCharge)
				b.try(j, ok(201, "created", "ord_2"), mine()).try(j, ok(201, "noop", "ord_9"))
				k := b.intent(noKey, opCharge)
				b.try(k, ok(201, "created", "ord_3"), mine()).try(k, ok(200, "noop", "ord_3"))
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckReplayConsistent: {major, major, major}},
			msgs: map[string][]string{checks.CheckReplayConsistent: {
				"a replay answered 200, the first reply 201",
				`a replay returned "ord_9", the first reply "ord_2"`,
				"a replay answered 200, the first reply 201",
			}},
			pass: []string{checks.CheckRetrySequential, checks.CheckEffectField, checks.CheckKeyRequired},
		},
		{
			why: "a replay after a lost reply is judged against the first reply the client saw",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(plain, opCharge)
				b.try(i, under(faults.NameLostResponse, unknown(503)), mine()).try(i, ok(201, "noop", "ord_1")).try(i, ok(201, "noop", "ord_1"))
				return b.done()
			}(),
			pass: []string{checks.CheckReplayConsistent, checks.CheckRetryAfterFault},
		},
		{
			why:  "a faithful replay",
			rec:  sequentialOK(),
			pass: []string{checks.CheckReplayConsistent},
		},
		{
			why: "regression c: a retry that acted again is not a replay; the duplicate is retry.sequential's critical",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(plain, opCharge)
				b.try(i, ok(201, "created", "ord_1"), mine()).try(i, ok(200, "created", "ord_2"), mine())
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckRetrySequential: {critical}},
			skip: []string{checks.CheckReplayConsistent},
		},
		{
			why: "no replay: one success, then refusals",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(plain, opCharge)
				b.try(i, ok(201, "created", "ord_1"), mine())
				return b.done()
			}(),
			skip: []string{checks.CheckReplayConsistent},
		},
	}
}

func effectFieldCases() []checkCase {
	return []checkCase{
		{
			why: "regression h: missing effect fields and wrong effects of the same operation are both reported",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(plain, opCharge)
				b.try(i, ok(201, "", "ord_1"), mine())
				j := b.intent(plain, opCharge)
				b.try(j, ok(201, "created", "ord_2"), mine()).try(j, ok(201, "created", "ord_2"))
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckEffectField: {major, major}},
			msgs: map[string][]string{checks.CheckEffectField: {
				"charge: 1 of 3 successful replies carry no effect field",
				`charge: 1 of 3 successful replies state the wrong effect (said "created"×1 where "noop" was due); the first: attempt 2 of 2 of intent 2 said "created": an earlier attempt of the same intent had been answered with success`,
			}},
			pass: []string{checks.CheckRetrySequential, checks.CheckReplayConsistent, checks.CheckExactlyOnce},
		},
		{
			why: "a read that says created, and a first call that acted but says noop: one finding per operation",
			rec: func() *record.Record {
				b := newRec()
				b.try(b.intent(read, opBalance), ok(200, "created", ""))
				b.try(b.intent(plain, opCharge), ok(201, "noop", "ord_1"), mine())
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckEffectField: {major, major}},
			msgs: map[string][]string{checks.CheckEffectField: {
				`balance: 1 of 1 successful replies state the wrong effect (said "created"×1 where "noop" was due); the first: attempt 1 of 1 of intent 1 said "created": a safe operation acts on nothing`,
				`charge: 1 of 1 successful replies state the wrong effect (said "noop"×1 where created/updated/deleted was due); the first: attempt 1 of 1 of intent 2 said "noop": its own call made the effect`,
			}},
			pass: []string{checks.CheckSafeReadOnly, checks.CheckExactlyOnce},
		},
		{
			why: "a \"noop\" for its own write after the database connection was reset past the commit: the client's resend is named",
			rec: func() *record.Record {
				b := newRec()
				b.try(b.intent(plain, opCharge), under(faults.NameDepResetAfterCommit, ok(201, "noop", "ord_1")), mine())
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckEffectField: {major}},
			msgs: map[string][]string{checks.CheckEffectField: {
				`said "noop": its own call made the effect, recorded while it ran: it acted, and says so ("created", "updated" or "deleted"); its database connection was reset after the write had committed, and a write its client sent again (go-redis does, unless MaxRetries is -1) would find the claim the first one made`,
			}},
		},
		{
			why: "a safe read needs no effect field: its replies without one are no finding",
			rec: func() *record.Record {
				b := newRec()
				b.try(b.intent(read, opBalance), ok(200, "", ""))
				b.try(b.intent(read, opBalance), ok(200, "noop", ""))
				i := b.intent(plain, opCharge)
				b.try(i, ok(201, "created", "ord_1"), mine()).try(i, ok(201, "noop", "ord_1"))
				return b.done()
			}(),
			pass: []string{checks.CheckEffectField, checks.CheckSafeReadOnly, checks.CheckRetrySequential},
		},
		{
			why: "regression m: an effect recorded during a retry after a forwarded attempt is ambiguous: noop is accepted",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(plain, opCharge)
				b.try(i, under(faults.NameLostResponse, unknown(503))).try(i, ok(201, "noop", "ord_1"), mine())
				return b.done()
			}(),
			pass: []string{checks.CheckEffectField, checks.CheckRetryAfterFault},
		},
		{
			why: "regression m: an effect recorded during a retry after a forwarded attempt is ambiguous: created is accepted",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(plain, opCharge)
				b.try(i, under(faults.NameReset, unknown(0))).try(i, ok(201, "created", "ord_1"), mine())
				return b.done()
			}(),
			pass: []string{checks.CheckEffectField},
		},
		{
			why: "an effect recorded during a retry after an attempt that never reached the target is that retry's: noop is wrong",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(plain, opCharge)
				b.try(i, under(faults.NameUnavailableBefore, notForwarded(unknown(503)))).try(i, ok(201, "noop", "ord_1"), mine())
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckEffectField: {major}},
			msgs: map[string][]string{checks.CheckEffectField: {"where created/updated/deleted was due"}},
		},
		{
			why: "regression m: a replay after the caller already saw a success must say noop",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(plain, opCharge)
				b.try(i, ok(201, "created", "ord_1"), mine()).try(i, ok(201, "created", "ord_1"))
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckEffectField: {major}},
			msgs: map[string][]string{checks.CheckEffectField: {`where "noop" was due`}},
		},
		{
			why: "a retry after a lost reply may still say created: the caller never saw the success",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(plain, opCharge)
				b.try(i, under(faults.NameLostResponse, unknown(503)), mine()).try(i, ok(201, "created", "ord_1"))
				return b.done()
			}(),
			pass: []string{checks.CheckEffectField},
		},
		{
			why: "a dry run's effect value is dryrun's to judge, not effect.field's",
			rec: func() *record.Record {
				b := newRec()
				b.try(b.intent(dryRun, opCharge), dry(ok(200, "created", "")))
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckDryRun: {minor}},
			pass: []string{checks.CheckEffectField},
		},
		{
			why: "no successful reply to judge",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(plain, opCharge)
				b.try(i, failed(400)).try(i, failed(400))
				return b.done()
			}(),
			skip: []string{checks.CheckEffectField},
		},
	}
}

func dryRunCases() []checkCase {
	return []checkCase{
		{
			why: "regression o: a dry run that charged (critical) and a real request after a dry run that did nothing (critical)",
			rec: func() *record.Record {
				b := newRec()
				d := b.intent(dryRun, opCharge)
				b.try(d, dry(ok(200, "would_create", "")), mine())
				b.try(b.intent(afterDry, opCharge, d), ok(201, "created", "ord_1"))
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckDryRun: {critical, critical}},
			msgs: map[string][]string{checks.CheckDryRun: {"a dry run caused 1 side effect", "the dry run consumed the key"}},
			pass: []string{checks.CheckExactlyOnce, checks.CheckEffectField},
		},
		{
			why: "a dry run refused, a dry run that says created, and an operation without a dry run: minor each",
			rec: func() *record.Record {
				ops := recordOps()
				ops = append(ops, record.Operation{Name: "refund", Mutating: true})
				b := newRec(ops...)
				b.try(b.intent(dryRun, opCharge), dry(failed(400)))
				b.try(b.intent(dryRun, opCharge), dry(ok(200, "created", "")))
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckDryRun: {minor, minor, minor}},
			msgs: map[string][]string{checks.CheckDryRun: {"refund offers no dry-run mode", "the dry run was answered 400", `effect "created": expected would_*`}},
		},
		{
			why: "a dry run that says would_create and does nothing, then the real request that charges",
			rec: func() *record.Record {
				b := newRec()
				d := b.intent(dryRun, opCharge)
				b.try(d, dry(ok(200, "would_create", "")))
				b.try(b.intent(afterDry, opCharge, d), ok(201, "created", "ord_1"), mine())
				return b.done()
			}(),
			pass: []string{checks.CheckDryRun, checks.CheckExactlyOnce, checks.CheckEffectField},
		},
		{
			why: "regression d: after a dry run, a single real call that charges twice is exactly-once's critical",
			rec: func() *record.Record {
				b := newRec()
				d := b.intent(dryRun, opCharge)
				b.try(d, dry(ok(200, "would_create", "")))
				b.try(b.intent(afterDry, opCharge, d), ok(201, "created", "ord_1"), mine(), mine())
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckExactlyOnce: {critical}},
			msgs: map[string][]string{checks.CheckExactlyOnce: {"a single call (attempt 1) caused 2 effects"}},
			pass: []string{checks.CheckDryRun},
		},
		{
			why: "a target with no mutating operation",
			rec: func() *record.Record {
				b := newRec(record.Operation{Name: opBalance})
				b.try(b.intent(read, opBalance), ok(200, "noop", ""))
				return b.done()
			}(),
			skip: []string{checks.CheckDryRun, checks.CheckExactlyOnce},
			pass: []string{checks.CheckSafeReadOnly},
		},
	}
}

func safeCases() []checkCase {
	return []checkCase{
		{
			why: "regression b: unmarked effects in a read's window, effects with its own marker (wherever they land) and effects with an unknown marker are blamed on it",
			rec: func() *record.Record {
				b := newRec()
				b.try(b.intent(read, opBalance), ok(200, "noop", ""), unmarked())
				r2 := b.intent(read, opBalance)
				b.try(r2, ok(200, "noop", "")).later(r2, mine())
				b.try(b.intent(read, opBalance), ok(200, "noop", ""), markedBy("idem-ffffffffffffffff"))
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckSafeReadOnly: {critical, critical, critical}},
			msgs: map[string][]string{checks.CheckSafeReadOnly: {
				"balance is declared safe but 1 call caused 1 side effect (charge ch_000001)",
				"(charge ch_000002)",
				"(charge ch_000003)",
			}},
		},
		{
			why: "regression b: an effect in a read's window that carries another intent's marker is that intent's, not the read's",
			rec: func() *record.Record {
				b := newRec()
				c := b.intent(plain, opCharge)
				b.try(c, ok(201, "created", "ord_1"))
				b.try(b.intent(read, opBalance), ok(200, "noop", ""), markedBy(markerOf(c)))
				return b.done()
			}(),
			pass: []string{checks.CheckSafeReadOnly, checks.CheckExactlyOnce, checks.CheckEffectField},
		},
		{
			why: "reads that cause nothing",
			rec: func() *record.Record {
				b := newRec()
				r := b.intent(read, opBalance)
				b.try(r, ok(200, "noop", "")).try(r, ok(200, "noop", ""))
				return b.done()
			}(),
			pass: []string{checks.CheckSafeReadOnly, checks.CheckEffectField},
		},
		{
			why:   "no safe call was made",
			rec:   sequentialOK(),
			skip:  []string{checks.CheckSafeReadOnly},
			notes: map[string]string{checks.CheckSafeReadOnly: "the target has no safe operation"},
		},
	}
}

func exactlyOnceCases() []checkCase {
	return []checkCase{
		{
			why: "an acknowledged intent with no effect (lost) and a single call that charged twice",
			rec: func() *record.Record {
				b := newRec()
				b.try(b.intent(plain, opCharge), ok(201, "created", "ord_1"))
				b.try(b.intent(plain, opCharge), ok(201, "created", "ord_2"), mine(), mine())
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckExactlyOnce: {critical, critical}},
			msgs: map[string][]string{checks.CheckExactlyOnce: {
				`charge: acknowledged (201, effect "created") but no side effect was recorded: the intent was lost`,
				"a single call (attempt 1) caused 2 effects (charge ch_000001, charge ch_000002)",
			}},
			pass: []string{checks.CheckEffectField},
		},
		{
			why: "a lost intent after a fault names the fault, and a ledger with no effect at all hints at the wiring",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(plain, opCharge)
				b.try(i, under(faults.NameDownstreamFailBefore, unknown(503))).try(i, ok(201, "noop", "ord_1"))
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckExactlyOnce: {critical}},
			msgs: map[string][]string{checks.CheckExactlyOnce: {"lost after downstream-503 (attempts: 503 (downstream-503), 201); no effect at all reached the fakes"}},
			pass: []string{checks.CheckRetryAfterFault},
		},
		{
			why: "regression g: one call that charged twice, then a correct noop replay",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(plain, opCharge)
				b.try(i, ok(201, "created", "ord_1"), mine(), mine()).try(i, ok(201, "noop", "ord_1"))
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckExactlyOnce: {critical}},
			pass: []string{checks.CheckRetrySequential},
		},
		{
			why: "a single call under an ambiguous downstream fault that the target retried itself is downstream.propagation's",
			rec: func() *record.Record {
				b := newRec()
				b.try(b.intent(plain, opCharge), under(faults.NameDownstreamFailAfter, ok(201, "created", "ord_1")), mine(), mine())
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckDownstream: {critical}},
			pass: []string{checks.CheckExactlyOnce},
		},
		{
			why: "an unacknowledged intent without effect is not lost: nobody was told it happened",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(plain, opCharge)
				b.try(i, failed(400)).try(i, failed(400))
				return b.done()
			}(),
			pass: []string{checks.CheckExactlyOnce},
		},
		{
			why:  "each intent with its one effect",
			rec:  sequentialOK(),
			pass: []string{checks.CheckExactlyOnce},
		},
		{
			why: "only safe calls",
			rec: func() *record.Record {
				b := newRec()
				b.try(b.intent(read, opBalance), ok(200, "noop", ""))
				return b.done()
			}(),
			skip: []string{checks.CheckExactlyOnce, checks.CheckRetrySequential},
		},
	}
}

// TestEvaluateIntentsWithoutAttempts: an interrupted run leaves intents
// with no attempt; no check may panic on them, whatever their role, nor on
// intents related to them (regression i).
func TestEvaluateIntentsWithoutAttempts(t *testing.T) {
	roles := []record.Role{plain, noKey, mismatch, twin, dryRun, afterDry, read, burstR}
	tests := []struct {
		why   string
		build func(b *recBuilder)
	}{
		{"one intent of each role, none attempted", func(b *recBuilder) {
			for _, r := range roles {
				op := opCharge
				if r == read {
					op = opBalance
				}
				b.intent(r, op)
			}
		}},
		{"intents related to an origin that was never attempted", func(b *recBuilder) {
			o := b.intent(plain, opCharge)
			b.try(b.intent(mismatch, opCharge, o), ok(201, "created", "ord_1"), mine())
			b.try(b.intent(twin, opCharge, o), ok(201, "created", "ord_2"))
			d := b.intent(dryRun, opCharge)
			b.try(b.intent(afterDry, opCharge, d), ok(201, "created", "ord_3"))
		}},
		{"intents related to an id that does not exist", func(b *recBuilder) {
			for _, r := range []record.Role{mismatch, twin, afterDry} {
				id := b.intent(r, opCharge)
				b.rec.Intent(id).Related = 99
				b.try(id, ok(201, "created", ""))
			}
		}},
		{"attempted intents, then unattempted ones of every role", func(b *recBuilder) {
			i := b.intent(plain, opCharge)
			b.try(i, ok(201, "created", "ord_1"), mine())
			for _, r := range roles {
				b.intent(r, opCharge, i)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.why, func(t *testing.T) {
			b := newRec()
			tt.build(b)
			require.NotPanics(t, func() { checks.Evaluate(b.done()) })
			tr := record.TargetResult{Name: "shop", Record: b.done()}
			require.NotPanics(t, func() { checks.Score(&tr) })
		})
	}
}

// TestEvaluateAttemptsWithoutNumbers: a record is a stable JSON contract
// that idemcheck report re-scores; one whose attempts lack their number
// (hand-written, or from another tool) must be judged, not crash the harness.
func TestEvaluateAttemptsWithoutNumbers(t *testing.T) {
	b := newRec()
	i := b.intent(plain, opCharge)
	b.try(i, ok(201, "created", "ord_1"), mine()).try(i, ok(201, "noop", "ord_1"))
	rec := b.done()
	for j := range rec.Intents[0].Attempts {
		rec.Intents[0].Attempts[j].N = 0
	}
	panicked := func() (p any) {
		defer func() { p = recover() }()
		checks.Evaluate(rec)
		return nil
	}()
	if panicked != nil {
	}
}

// TestEvaluateHonoursEnabledChecks: a record's Checks list disables the
// others, which skip with the note "disabled".
func TestEvaluateHonoursEnabledChecks(t *testing.T) {
	b := newRec()
	i := b.intent(plain, opCharge)
	b.try(i, ok(201, "created", "ord_1"), mine()).try(i, ok(201, "created", "ord_2"), mine())
	rec := b.done()
	rec.Target.Capabilities = &record.Capabilities{Keys: true, EffectField: true, DryRun: true, Burst: true, Restart: true, Signatures: true, Reorder: true, Annotations: true, Redelivery: true, Profile: checks.ProfileIETFDraft}
	rec.Checks = []string{checks.CheckExactlyOnce}
	// Every capability: every check applies but key.malformed, which a
	// queue consumer (Redelivery) has no reply for.
	notApplicable := checks.NotApplicable(*rec.Target.Capabilities)
	assert.Equal(t, []string{checks.CheckKeyMalformed}, notApplicable)
	results, found := verdicts(t, rec)
	assert.Empty(t, found[checks.CheckRetrySequential], "a disabled check reports nothing")
	for _, id := range allChecks() {
		switch {
		case id == checks.CheckExactlyOnce:
			assert.Equal(t, record.StatusPass, results[id].Status)
		case slices.Contains(notApplicable, id):
			assert.Equal(t, record.StatusSkip, results[id].Status)
		default:
			assert.Equal(t, record.CheckResult{ID: id, Status: record.StatusSkip, Note: "disabled"}, results[id])
		}
	}
}

func TestKnownCheck(t *testing.T) {
	for _, id := range allChecks() {
		assert.True(t, checks.KnownCheck(id), id)
	}
	for _, id := range []string{"", "retry", "Retry.Sequential", "exactly_once"} {
		assert.False(t, checks.KnownCheck(id), id)
	}
}

// TestRetrySequentialJudgesRetriesOfLostIntents: a completed request whose
// retry is answered 409 is retry.sequential's major finding even when the
// first call's effect went missing (which is exactly-once's critical).
func TestRetrySequentialJudgesRetriesOfLostIntents(t *testing.T) {
	b := newRec()
	i := b.intent(plain, opCharge)
	b.try(i, ok(201, "created", "ord_1")).try(i, failed(409))
	tc := checkCase{
		why:  "lost, then a retry answered 409",
		rec:  b.done(),
		fail: map[string][]record.Severity{checks.CheckExactlyOnce: {critical}, checks.CheckRetrySequential: {major}},
		msgs: map[string][]string{checks.CheckRetrySequential: {"answered 409"}},
	}
	_, found := verdicts(t, tc.rec)
	if len(found[checks.CheckRetrySequential]) == 0 {
	}
	runCheckCase(t, tc)
}

// twoOps are a record's operations when a key crosses from one mutating
// operation to another.
func twoOps() []record.Operation {
	return append(recordOps(), record.Operation{Name: opRefund, Mutating: true, DryRun: true})
}

const opRefund = "refund"

func keyScopeCases() []checkCase {
	return []checkCase{
		{
			why: "the key of a charge sent to refund is answered with the charge's stored reply: minor (as key.mismatch), and not exactly-once's too",
			rec: func() *record.Record {
				b := newRec(twoOps()...)
				i := b.intent(plain, opCharge)
				b.try(i, ok(201, "created", "ord_1"), mine())
				b.try(b.intent(otherOp, opRefund, i), ok(201, "noop", "ord_1"))
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckKeyScope: {minor}},
			msgs: map[string][]string{checks.CheckKeyScope: {"refund: a key first used on charge was answered with charge's stored reply (201, ord_1)"}},
			pass: []string{checks.CheckExactlyOnce, checks.CheckEffectField},
		},
		{
			why: "keys scoped per operation: the refund with the charge's key runs on its own",
			rec: func() *record.Record {
				b := newRec(twoOps()...)
				i := b.intent(plain, opCharge)
				b.try(i, ok(201, "created", "ord_1"), mine())
				b.try(b.intent(otherOp, opRefund, i), ok(201, "created", "rf_1"), mine())
				return b.done()
			}(),
			pass: []string{checks.CheckKeyScope, checks.CheckExactlyOnce},
		},
		{
			why: "the reuse refused with 422 is honest",
			rec: func() *record.Record {
				b := newRec(twoOps()...)
				i := b.intent(plain, opCharge)
				b.try(i, ok(201, "created", "ord_1"), mine())
				b.try(b.intent(otherOp, opRefund, i), failed(422))
				return b.done()
			}(),
			pass: []string{checks.CheckKeyScope},
		},
		{
			why: "two mutating operations, but no key crossed to the other: not judged, and the note does not say there is one operation",
			rec: func() *record.Record {
				b := newRec(twoOps()...)
				b.try(b.intent(plain, opCharge), ok(201, "created", "ord_1"), mine())
				return b.done()
			}(),
			skip:  []string{checks.CheckKeyScope},
			notes: map[string]string{checks.CheckKeyScope: "no key's first use completed, so there was nothing to cross"},
		},
		{
			why:   "one mutating operation: nothing to cross into",
			rec:   sequentialOK(),
			skip:  []string{checks.CheckKeyScope},
			notes: map[string]string{checks.CheckKeyScope: "the target has fewer than two mutating operations and fewer than two callers (callers: gives it more)"},
		},
	}
}
