package checks_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/record"
)

// malformedRecord is a served plain intent, then a malformed key
// answered with a.
func malformedRecord(a record.Attempt) *record.Record {
	b := newRec()
	i := b.intent(plain, opCharge)
	b.try(i, ok(201, "created", "ord_1"), mine())
	m := b.intent(record.RoleMalformedKey, opCharge)
	b.rec.Intent(m).Key = "idk-00000000000000a2-" + strings.Repeat("x", checks.MalformedKeyLength-21)
	b.try(m, a)
	return b.done()
}

func keyMalformedCases() []checkCase {
	return []checkCase{
		{
			why:  "a malformed key answered 500 (a column too narrow for it), while well-formed keys were served",
			rec:  malformedRecord(unknown(500)),
			fail: map[string][]record.Severity{checks.CheckKeyMalformed: {major}},
			msgs: map[string][]string{checks.CheckKeyMalformed: {"charge: a malformed idempotency key (300 characters) was answered HTTP 500, while well-formed keys were served: a malformed key is the client's error"}},
		},
		{
			why:  "a malformed key answered 502: the finding says the API the key went to may have refused it",
			rec:  malformedRecord(unknown(502)),
			fail: map[string][]record.Severity{checks.CheckKeyMalformed: {major}},
			msgs: map[string][]string{checks.CheckKeyMalformed: {"was answered HTTP 502, while well-formed keys were served: a malformed key is the client's error; refuse it with 400, saying what a key must look like. A server error tells the caller to retry the same request, which can never succeed. A 502 blames a call the target made: if it passes the key on, the API it calls may have refused it (the fakes, as Stripe, take keys of at most 255 characters)"}},
		},
		{
			why: "an MCP tool's isError result with status 503 is not said to be HTTP, and the refusal it needs is a result too",
			rec: func() *record.Record {
				a := unknown(503)
				a.Error = "isError: the payments API refused the key"
				return malformedRecord(a)
			}(),
			fail: map[string][]record.Severity{checks.CheckKeyMalformed: {major}},
			msgs: map[string][]string{checks.CheckKeyMalformed: {"was answered an isError result with status 503, while well-formed keys were served: a malformed key is the client's error; refuse it with an isError result with status 400, saying"}},
		},
		{
			why:  "a malformed key refused with 400",
			rec:  malformedRecord(failed(400)),
			pass: []string{checks.CheckKeyMalformed},
		},
		{
			why:  "a malformed key accepted: the target takes long keys, nothing to say",
			rec:  malformedRecord(ok(201, "created", "ord_2")),
			pass: []string{checks.CheckKeyMalformed},
		},
		{
			why: "a queue consumer has no reply to refuse a key with: not applicable, even with a malformed key sent",
			rec: func() *record.Record {
				r := malformedRecord(unknown(500))
				r.Target.Kind = "consumer"
				r.Target.Capabilities = &record.Capabilities{Keys: true, Redelivery: true}
				return r
			}(),
			skip:  []string{checks.CheckKeyMalformed},
			notes: map[string]string{checks.CheckKeyMalformed: "not applicable to consumer targets"},
		},
		{
			why:  "no malformed key was sent",
			rec:  sequentialOK(),
			skip: []string{checks.CheckKeyMalformed},
		},
	}
}

// TestKeyMalformedBlamesADownstreamOnlyForAGatewayError: a 500 is the
// target's own failure, and the finding does not guess at a downstream.
func TestKeyMalformedBlamesADownstreamOnlyForAGatewayError(t *testing.T) {
	for status, hint := range map[int]bool{500: false, 502: true, 503: true, 504: true} {
		_, fs := checks.Evaluate(malformedRecord(unknown(status)))
		var msg string
		for _, f := range fs {
			if f.Check == checks.CheckKeyMalformed {
				msg = f.Message
			}
		}
		require.NotEmpty(t, msg, "HTTP %d", status)
		assert.Equal(t, hint, strings.Contains(msg, "blames a call the target made"), "HTTP %d: %s", status, msg)
	}
}

// A reused key whose first request failed compared no payloads:
// key.mismatch is not examined, saying why, never passed.
func TestKeyMismatchWithAFailedFirstRequestIsNotExamined(t *testing.T) {
	b := newRec()
	first := b.intent(plain, opCharge)
	b.try(first, unknown(500))
	m := b.intent(mismatch, opCharge, first)
	b.try(m, unknown(500))
	results, found := verdicts(t, b.done())
	assert.Empty(t, found[checks.CheckKeyMismatch])
	c := results[checks.CheckKeyMismatch]
	assert.Equal(t, record.StatusSkip, c.Status)
	assert.Contains(t, c.Note, "the first request of every reused key failed")
}
