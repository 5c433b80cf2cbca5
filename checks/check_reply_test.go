package checks_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/record"
)

// isErrorReply is an MCP result with isError: true, as the adapter
// records it.
func isErrorReply(text string) record.Attempt {
	a := failed(400)
	a.Error = "isError: " + text
	a.Body = `{"content":[{"type":"text","text":"` + text + `"}],"isError":true}`
	return a
}

// exitReply is a command that exited with code.
func exitReply(code int, out record.Outcome) record.Attempt {
	return record.Attempt{Reply: record.Reply{Outcome: out, Status: code, Forwarded: true, Error: "exit 1: charge failed: please retry"}}
}

func replyHonestCases() []checkCase {
	return []checkCase{
		{
			why: "a 502 answered while the charge went through, then a retry that replayed it: the caller was misled (major)",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(plain, opCharge)
				b.try(i, unknown(502), mine()).try(i, ok(201, "created", "ord_1"))
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckReplyHonest: {major}},
			msgs: map[string][]string{checks.CheckReplyHonest: {"charge: attempt 1 was answered as a failure (HTTP 502) but its effect happened (charge ch_000001): the caller is told it failed; it will retry, compensate, or report a failure that did not happen"}},
		},
		{
			why: "an isError result while the charge went through, and the same-key retry charged again: critical",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(plain, opCharge)
				b.try(i, isErrorReply("charge failed: please retry"), mine()).try(i, ok(200, "created", "ord_2"), mine())
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckReplyHonest: {critical}, checks.CheckRetrySequential: {critical}},
			msgs: map[string][]string{checks.CheckReplyHonest: {"(isError: true) but its effect happened"}},
		},
		{
			why: "a keyless target's non-zero exit after its effect: critical, the retry acts again",
			rec: func() *record.Record {
				b := newRec()
				b.rec.Target.Capabilities = &record.Capabilities{}
				i := b.intent(noKey, opCharge)
				b.try(i, exitReply(1, record.Fail), mine())
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckReplyHonest: {critical}},
			msgs: map[string][]string{checks.CheckReplyHonest: {"(exit 1) but its effect happened (charge ch_000001): the caller is told it failed and will retry, and the operation takes no key"}},
		},
		{
			why: "a 502 under a downstream fault that failed after charging: the target could not know, nothing to report",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(plain, opCharge)
				b.try(i, under("downstream-503-after", unknown(502)), mine()).try(i, ok(201, "created", "ord_1"))
				return b.done()
			}(),
			pass: []string{checks.CheckReplyHonest},
		},
		{
			why: "a temporary failure (exit 75) after the target's own timeout gave up on a slow charge, made after it hung up: it could not know",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(plain, opCharge)
				late := keyed("k")
				late.Unanswered = true
				tempfail := exitReply(75, record.Info)
				tempfail.Error = "exit 75: payments timed out"
				b.try(i, tempfail, late).try(i, ok(200, "noop", "ord_1"))
				return b.done()
			}(),
			pass: []string{checks.CheckReplyHonest},
		},
		{
			why: "the same temporary failure after the fake had answered the charge: the target knew, and misled its caller",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(plain, opCharge)
				tempfail := exitReply(75, record.Info)
				tempfail.Error = "exit 75: payments timed out"
				b.try(i, tempfail, keyed("k")).try(i, ok(200, "noop", "ord_1"))
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckReplyHonest: {major}},
			msgs: map[string][]string{checks.CheckReplyHonest: {"attempt 1 was answered as a failure (exit 75) but its effect happened"}},
		},
		{
			why: "failures with no effect and successes with theirs: honest",
			rec: func() *record.Record {
				b := newRec()
				i := b.intent(plain, opCharge)
				b.try(i, unknown(503)).try(i, ok(201, "created", "ord_1"), mine()).try(i, failed(409))
				return b.done()
			}(),
			pass: []string{checks.CheckReplyHonest},
		},
		{
			why: "a target with only a safe operation: nothing to judge",
			rec: func() *record.Record {
				b := newRec()
				b.try(b.intent(read, opBalance), ok(200, "", "bal_1"))
				return b.done()
			}(),
			skip: []string{checks.CheckReplyHonest},
		},
	}
}

// keylessRecord is a target whose one mutating operation takes no key
// and says idempotentHint: false: two intents, each called twice with the
// same arguments, each acting twice.
func keylessRecord() *record.Record {
	op := recordOps()[0]
	op.DryRun = false
	op.Annotations = &record.Annotations{}
	b := newRec(op)
	b.rec.Target.Capabilities = &record.Capabilities{Annotations: true}
	for range 2 {
		i := b.intent(plain, opCharge)
		b.try(i, ok(200, "", "t_1"), mine()).try(i, ok(200, "", "t_2"), mine())
	}
	return b.done()
}

// A webhook's sender reads only whether a delivery succeeded: a
// redelivery answered 200 after a first 201, with another body, is the
// same answer to it, and so are copies of a burst naming two results;
// replay.consistent does not apply to it. An API's caller reads the
// status and the identity.
func TestReplayConsistentForEventSenders(t *testing.T) {
	for _, events := range []bool{true, false} {
		b := newRec()
		if events {
			b.rec.Target.Capabilities = &record.Capabilities{EventKeys: true}
		}
		i := b.intent(plain, opCharge)
		b.try(i, ok(201, "created", "ord_1"), mine())
		replayed := "ord_1" // a sequential replay that renames nothing: the burst's two results stand alone
		if !events {
			replayed = "ord_9"
		}
		b.try(i, ok(200, "noop", replayed))
		j := b.intent(burstR, opCharge)
		b.burst(j, []record.Attempt{ok(201, "created", "ord_3"), ok(201, "noop", "ord_4")}, mine())
		results, found := verdicts(t, b.done())
		if events {
			assert.Equal(t, record.StatusSkip, results[checks.CheckReplayConsistent].Status)
			assert.Empty(t, found[checks.CheckReplayConsistent])
			assert.Empty(t, found[checks.CheckConcurrentDuplicates], describe(found[checks.CheckConcurrentDuplicates]))
			continue
		}
		require.Len(t, found[checks.CheckReplayConsistent], 1)
		assert.Contains(t, found[checks.CheckReplayConsistent][0].Message, "a replay answered 200, the first reply 201")
	}
}

// An operation that marks its replays (Idempotent-Replayed: true, a
// result's "replayed": true) instead of carrying an effect field tells a
// caller whether a retry acted: the mark is judged as the effect. One
// that marks nothing carries no effect at all.
func TestReplayMarkIsTheEffect(t *testing.T) {
	bare := func(status int, identity string, replayed bool) record.Attempt {
		a := ok(status, "", identity)
		a.Replayed = replayed
		return a
	}
	for _, tc := range []struct {
		name   string
		replay record.Attempt
		want   string
	}{
		{"a marked replay", bare(201, "inv_1", true), ""},
		{"an unmarked replay beside marked ones", bare(201, "inv_1", false), `said "no replayed mark"×1 where "noop" was due`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newRec()
			i := b.intent(plain, opCharge)
			b.try(i, bare(201, "inv_1", false), mine())
			b.try(i, tc.replay)
			j := b.intent(plain, opCharge)
			b.try(j, bare(201, "inv_2", false), mine())
			b.try(j, bare(201, "inv_2", true))
			fs := findingsOf(t, b.done(), checks.CheckEffectField)
			if tc.want == "" {
				assert.Empty(t, fs, describe(fs))
				return
			}
			require.Len(t, fs, 1, describe(fs))
			assert.Contains(t, fs[0].Message, tc.want)
		})
	}
	t.Run("a first reply alone shows nothing", func(t *testing.T) {
		// A generated trial's one call of an operation that marks its
		// replays: nothing in it says the caller could not tell.
		b := newRec()
		i := b.intent(plain, opCharge)
		b.try(i, bare(201, "inv_1", false), mine())
		assert.Empty(t, findingsOf(t, b.done(), checks.CheckEffectField))
	})
	t.Run("a retry that acted again, told as nothing", func(t *testing.T) {
		b := newRec()
		i := b.intent(plain, opCharge)
		b.try(i, bare(201, "inv_1", false), mine())
		b.try(i, bare(201, "inv_2", false), mine())
		fs := findingsOf(t, b.done(), checks.CheckEffectField)
		require.Len(t, fs, 1, describe(fs))
		assert.Contains(t, fs[0].Message, "carry no effect field")
	})
	t.Run("no mark at all", func(t *testing.T) {
		b := newRec()
		i := b.intent(plain, opCharge)
		b.try(i, bare(201, "inv_1", false), mine())
		b.try(i, bare(201, "inv_1", false))
		fs := findingsOf(t, b.done(), checks.CheckEffectField)
		require.Len(t, fs, 1, describe(fs))
		assert.Contains(t, fs[0].Message, "carry no effect field")
	})
}

// Replies in which the identity locator found nothing were compared by
// status alone: replay.consistent passes, and the run says what it did
// not examine.
func TestReplaysWithNoIdentityAreSaidToBeComparedByStatus(t *testing.T) {
	for _, withID := range []bool{false, true} {
		b := newRec()
		id := ""
		if withID {
			id = "ord_1"
		}
		i := b.intent(plain, opCharge)
		b.try(i, ok(201, "created", id), mine())
		b.try(i, ok(201, "noop", id))
		rec := b.done()
		results, _ := verdicts(t, rec)
		var list []record.CheckResult
		for _, c := range checks.Checks() {
			list = append(list, results[c.ID])
		}
		said := false
		for _, u := range checks.NotExamined(rec, list, nil) {
			said = said || (u.Check == checks.CheckReplayConsistent && strings.Contains(u.Reason, "compared by their status alone"))
		}
		assert.Equal(t, !withID, said, "identity %q", id)
	}
}
