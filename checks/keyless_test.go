package checks_test

import (
	"strings"
	"time"

	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/record"
)

// mixedRecord is a server with a charge tool that takes a key and a
// post_ticket tool that takes none (record.Operation.NoKey) and says
// idempotentHint: false: each called twice with the same arguments,
// each acting twice.
func mixedRecord() *record.Record {
	charge := recordOps()[0]
	charge.DryRun = false
	ticket := record.Operation{Name: "post_ticket", Mutating: true, NoKey: true, Annotations: &record.Annotations{}}
	b := newRec(charge, ticket)
	b.rec.Target.Capabilities = &record.Capabilities{Keys: true, Annotations: true}
	i := b.intent(plain, opCharge)
	b.try(i, ok(200, "created", "ch_1"), mine()).try(i, ok(200, "created", "ch_2"), mine())
	for range 2 {
		j := b.intent(plain, "post_ticket")
		b.try(j, ok(200, "", "t_1"), mine()).try(j, ok(200, "", "t_2"), mine())
	}
	k := b.intent(noKey, "post_ticket")
	b.try(k, ok(200, "", "t_3"), mine()).try(k, ok(200, "", "t_4"), mine())
	return b.done()
}

// On a target whose tools differ, the tool that takes no key is judged
// as keyless: one finding per check, naming the tool and what its
// annotations promise, with no word of a key, and no finding of a check
// of keys. The tool that takes a key keeps the keyed wording.
func TestKeylessWordingIsPerOperation(t *testing.T) {
	_, found := verdicts(t, mixedRecord())
	var ticket, charge []record.Finding
	for _, f := range found[checks.CheckRetrySequential] {
		switch f.Operation {
		case "post_ticket":
			ticket = append(ticket, f)
		case opCharge:
			charge = append(charge, f)
		}
	}
	require.Len(t, ticket, 1, "one finding for the keyless tool")
	assert.Equal(t, "post_ticket: calling post_ticket 2 times with the same arguments caused 2 effects (charge ch_000003, charge ch_000004); it takes no key and says idempotentHint: false (seen in 2 intents)", ticket[0].Message)
	require.Len(t, charge, 1)
	assert.Contains(t, charge[0].Message, "the same key sent 2 times")
	assert.NotContains(t, charge[0].Message, "takes no key")
	for _, f := range found[checks.CheckKeyRequired] {
		assert.NotEqual(t, "post_ticket", f.Operation, "no key was sent to it: %s", f.Message)
	}
}

// A webhook receiver or a queue consumer takes no key beside the
// payload, but every delivery carries the event's id, its key: a
// duplicate is judged as a key not honoured, worded with keys, never as
// a keyless tool's (annotations, "the same arguments"); the checks of
// keys a caller chooses are skipped with that said. The same record on a
// target without such ids keeps the keyless wording.
func TestEventIDIsTheKey(t *testing.T) {
	build := func(caps record.Capabilities) *record.Record {
		charge := recordOps()[0]
		charge.DryRun = false
		b := newRec(charge)
		b.rec.Target.Kind = "webhook"
		b.rec.Target.Capabilities = &caps
		i := b.intent(plain, opCharge)
		b.try(i, ok(200, "", ""), mine()).try(i, ok(200, "", ""), mine())
		return b.done()
	}
	results, found := verdicts(t, build(record.Capabilities{EventKeys: true}))
	require.Len(t, found[checks.CheckRetrySequential], 1)
	msg := found[checks.CheckRetrySequential][0].Message
	assert.Contains(t, msg, "the same event delivered 2 times", "a webhook's key is its event id, and a retry the event delivered again")
	assert.Contains(t, msg, "the handler did not recognise the event id as processed")
	assert.NotContains(t, msg, "key")
	assert.NotContains(t, msg, "annotations")
	assert.NotContains(t, msg, "takes no key")
	for _, id := range []string{checks.CheckKeyRequired, checks.CheckKeyMismatch} {
		assert.Equal(t, record.StatusSkip, results[id].Status, id)
		assert.Contains(t, results[id].Note, "the event's own id", id)
		assert.NotContains(t, results[id].Note, "annotations", id)
	}

	results, found = verdicts(t, build(record.Capabilities{}))
	require.Len(t, found[checks.CheckRetrySequential], 1)
	assert.Contains(t, found[checks.CheckRetrySequential][0].Message, "it takes no key and has no annotations")
	assert.Contains(t, results[checks.CheckKeyRequired].Note, "annotations")
}

// retry.late on a tool that takes no key is worded without keys: how
// many other calls came between, never how many keys it keeps.
func TestLateRetryOfAKeylessToolSaysNothingOfKeys(t *testing.T) {
	rec := lateRecord(16, []int{1, 2, 4, 8}, 3*time.Second, func(int, time.Duration) bool { return true })
	rec.Target.Kind = "mcp"
	rec.Target.Capabilities = &record.Capabilities{Annotations: true}
	_, found := verdicts(t, rec)
	require.Len(t, found[checks.CheckRetryLate], 1)
	msg := found[checks.CheckRetryLate][0].Message
	assert.Contains(t, msg, "the same call again after 1 other call and at least 3s caused 2 effects")
	said, promise, ok := strings.Cut(msg, "; it takes no key")
	require.True(t, ok, msg)
	assert.NotContains(t, said, "key", "what it did is told without keys")
	assert.NotContains(t, promise, "keys")
}

// An event a consumer never acknowledged is said as such in a finding's
// list of attempts, not as a bare "info": the reason is in the report,
// not only in result.json.
func TestAnUnacknowledgedEventIsSaidSo(t *testing.T) {
	charge := recordOps()[0]
	b := newRec(charge)
	b.rec.Target.Kind = "consumer"
	b.rec.Target.Capabilities = &record.Capabilities{EventKeys: true}
	noAck := func() record.Attempt {
		a := unknown(0)
		a.Error = "the consumer did not acknowledge event evt_1 within 10s (context deadline exceeded)"
		return a
	}
	i := b.intent(plain, opCharge)
	b.try(i, under(faults.NameDownstreamFailBefore, noAck())).try(i, noAck()).try(i, noAck())
	_, found := verdicts(t, b.done())
	require.Len(t, found[checks.CheckRetryAfterFault], 1)
	assert.Contains(t, found[checks.CheckRetryAfterFault][0].Message, "(no ack (downstream-503), no ack, no ack)")
}

// A webhook handler's duplicate after its commit was answered and lost
// speaks of the event id it did not record, not of a key and its reply.
func TestAWebhooksDuplicateAfterACommitSpeaksOfTheEventID(t *testing.T) {
	charge := recordOps()[0]
	charge.DryRun = false
	b := newRec(charge)
	b.rec.Target.Kind = "webhook"
	b.rec.Target.Capabilities = &record.Capabilities{EventKeys: true}
	i := b.intent(plain, opCharge)
	b.try(i, under(faults.NameDepResetAfterCommit, unknown(500)), mine()).try(i, ok(200, "", ""), mine())
	f := onlyFinding(t, b.done(), checks.CheckDependencyRecovery)
	assert.Contains(t, f.Message, "after dep-reset-after-commit, delivering the event again caused 2 effects")
	assert.Contains(t, f.Message, "the redelivery did not find the event id: the event id is not recorded as processed in the transaction that writes the effect")
	assert.NotContains(t, f.Message, "key")
}
