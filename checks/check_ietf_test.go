package checks_test

import (
	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/record"
)

// ietfCaps are the capabilities of a target on the ietf-draft profile.
func ietfCaps() *record.Capabilities {
	c := record.DefaultCapabilities()
	c.Profile = checks.ProfileIETFDraft
	return &c
}

// ietfRecord is a record of the four probes ietf.draft judges, answered
// with the given statuses: keyless, reused key with another payload, the
// second copy of a burst, and the retry after success.
func ietfRecord(keyless, mismatchReply, copyReply, retry record.Attempt) *record.Record {
	b := newRec()
	p := b.intent(plain, opCharge)
	b.try(p, ok(201, "created", "ord_1"), mine()).try(p, retry)
	n := b.intent(noKey, opCharge)
	b.try(n, keyless).try(n, keyless)
	o := b.intent(plain, opCharge)
	b.try(o, ok(201, "created", "ord_2"), mine())
	o2 := b.intent(plain, opCharge)
	b.try(o2, ok(201, "created", "ord_3"), mine())
	b.try(b.intent(mismatch, opCharge, o2), mismatchReply)
	u := b.intent(burstR, opCharge)
	b.burst(u, []record.Attempt{ok(201, "created", "ord_4"), copyReply}, mine())
	return b.done()
}

func ietfDraftCases() []checkCase {
	conforming := ietfRecord(failed(400), failed(422), failed(409), ok(201, "noop", "ord_1"))
	conforming.Target.Capabilities = ietfCaps()
	replayedCopy := ietfRecord(failed(400), failed(422), ok(201, "noop", "ord_4"), ok(201, "noop", "ord_1"))
	replayedCopy.Target.Capabilities = ietfCaps()
	deviating := ietfRecord(failed(428), failed(409), failed(423), ok(200, "noop", "ord_1"))
	deviating.Target.Capabilities = ietfCaps()
	otherResult := ietfRecord(failed(400), failed(422), failed(409), ok(201, "noop", "ord_9"))
	otherResult.Target.Capabilities = ietfCaps()
	notOptedIn := ietfRecord(failed(428), failed(409), failed(423), ok(200, "noop", "ord_1"))
	return []checkCase{
		{
			why:  "a target on the profile that answers 400, 422 and 409, and replays the first reply",
			rec:  conforming,
			pass: []string{checks.CheckIETFDraft},
		},
		{
			why:  "a concurrent copy answered with the first reply replayed is as good as 409",
			rec:  replayedCopy,
			pass: []string{checks.CheckIETFDraft},
		},
		{
			why:  "every status the draft names answered otherwise: one finding each, naming the draft's section",
			rec:  deviating,
			fail: map[string][]record.Severity{checks.CheckIETFDraft: {minor, minor, minor, minor}, checks.CheckReplayConsistent: {major}},
			msgs: map[string][]string{checks.CheckIETFDraft: {
				"section 2.7 (Error Scenarios): a request without the Idempotency-Key header should be refused with 400 Bad Request; 2 of 2 keyless requests were answered 428",
				"section 2.7 (Error Scenarios): a key reused with a different payload should be refused with 422 Unprocessable Content; 1 of 1 such requests were answered 409",
				"should get 409 Conflict (or, once done, the first reply); 1 of 2 concurrent copies were answered 423",
				"section 2.6 (Idempotency Enforcement): a retry with the same key and payload after a success should get the first reply again; 1 of 1 retries were answered 200 after 201",
			}},
		},
		{
			why:  "a retry after success answered with another result",
			rec:  otherResult,
			fail: map[string][]record.Severity{checks.CheckIETFDraft: {minor}, checks.CheckReplayConsistent: {major}},
			msgs: map[string][]string{checks.CheckIETFDraft: {`retries were answered "ord_9" after "ord_1"`}},
		},
		{
			why:   "a target that did not opt into the profile is not held to the draft",
			rec:   notOptedIn,
			fail:  map[string][]record.Severity{checks.CheckReplayConsistent: {major}},
			skip:  []string{checks.CheckIETFDraft},
			notes: map[string]string{checks.CheckIETFDraft: "not applicable: only a target on the ietf-draft profile (profile: ietf-draft) is judged by it"},
		},
	}
}
