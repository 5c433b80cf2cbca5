package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/keys"
	"github.com/idemcheck/idemcheck/record"
)

// refusedRecord is a record whose every keyed call was refused with a.
func refusedRecord(a record.Attempt) *record.Record {
	return &record.Record{Intents: []record.Intent{{
		ID: 1, Operation: "create_payment", Mutating: true, Role: record.RolePlain, Key: "idk-00000000000000a1",
		Attempts: []record.Attempt{a, a},
	}}}
}

func TestKeyFormatHint(t *testing.T) {
	meta := record.Attempt{Reply: record.Reply{Outcome: record.Fail, Status: 400, Forwarded: true,
		Error: `isError: idempotency key required in _meta["io.example/key"]`}}
	got := keyFormatHint(refusedRecord(meta), keys.Format{})
	assert.Contains(t, got, "the refusal names _meta")
	assert.Contains(t, got, "set key_meta: io.example/key")
	assert.NotContains(t, got, "key_format", "no key was sent where the server looks: the key's shape is not the cause")

	shape := record.Attempt{Reply: record.Reply{Outcome: record.Fail, Status: 400, Forwarded: true, Body: `{"error":"Idempotency-Key must be a UUID"}`}}
	got = keyFormatHint(refusedRecord(shape), keys.Format{})
	assert.Contains(t, got, `every request with an idempotency key was refused (last: 400 for key "idk-00000000000000a1", key_format token)`)

	isErr := record.Attempt{Reply: record.Reply{Outcome: record.Fail, Status: 400, Forwarded: true, Error: "isError: bad key"}}
	got = keyFormatHint(refusedRecord(isErr), keys.Format{})
	assert.Contains(t, got, "(last: isError for key", "an MCP isError is shown as isError, not as a status")

	ok := record.Attempt{Reply: record.Reply{Outcome: record.OK, Status: 200, Forwarded: true}}
	rec := refusedRecord(meta)
	rec.Intents[0].Attempts = append(rec.Intents[0].Attempts, ok)
	assert.Empty(t, keyFormatHint(rec, keys.Format{}), "a keyed call was accepted")
}

// A refusal that gives another reason than the key (an argument the
// tool's schema does not allow) gets no advice on keys; one that says
// nothing, or nothing that rules the key out, may still be of the key,
// and gets it.
func TestKeyFormatHintOnlyWhereTheKeyMayBeTheCause(t *testing.T) {
	schema := record.Attempt{Reply: record.Reply{Outcome: record.Fail, Status: 400, Forwarded: true,
		Error: `isError: validating "arguments": validating root: unexpected additional properties ["qty"]`}}
	assert.Empty(t, keyFormatHint(refusedRecord(schema), keys.Format{}))
	bare := record.Attempt{Reply: record.Reply{Outcome: record.Fail, Status: 400, Forwarded: true}}
	assert.Contains(t, keyFormatHint(refusedRecord(bare), keys.Format{}), "set key_format")
	generic := record.Attempt{Reply: record.Reply{Outcome: record.Fail, Status: 400, Forwarded: true, Body: `{"error":"bad request"}`}}
	assert.Contains(t, keyFormatHint(refusedRecord(generic), keys.Format{}), "set key_format", "a refusal that says no more may be of the key")
	params := record.Attempt{Reply: record.Reply{Outcome: record.Fail, Forwarded: true, Error: "JSON-RPC error -32602: Invalid params"}}
	assert.Contains(t, keyFormatHint(refusedRecord(params), keys.Format{}), "set key_format", "the key is one of the params")
}

// The proxy's own 502 (the target's reply never came whole: its header
// was endless) says nothing of the target's keys: no advice on them.
func TestKeyFormatHintIgnoresTheProxysOwnFailure(t *testing.T) {
	proxy := record.Attempt{Reply: record.Reply{Outcome: record.Info, Status: 502, Forwarded: true,
		Body: faults.ProxyErrorPrefix + "reading the reply: the header section is over 64 KiB"}}
	assert.Empty(t, keyFormatHint(refusedRecord(proxy), keys.Format{}))
}
