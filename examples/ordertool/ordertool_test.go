package ordertool_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/examples/ordertool"
	"github.com/idemcheck/idemcheck/fakes"
)

func TestCreateOrderThenReplay(t *testing.T) {
	// Rows: what a sequential retry with the same key does, per store.
	rows := []struct {
		store   string
		charges int
		second  string
	}{
		{"none", 2, "created"},
		{"jsonl", 1, "noop"},
		{"sqlite", 1, "noop"},
		{"correct", 1, "noop"},
	}
	for _, row := range rows {
		t.Run(row.store, func(t *testing.T) {
			w := newWorld(t)
			first := w.order(row.store, "--idempotency-key", "k-1")
			require.Equal(t, ordertool.ExitOK, first.code, first.stdout+first.stderr)
			assert.True(t, first.reply.OK)
			assert.Equal(t, "created", first.reply.Effect)
			assert.True(t, strings.HasPrefix(first.reply.id(), "ord_"), first.stdout)
			second := w.order(row.store, "--idempotency-key", "k-1")
			require.Equal(t, ordertool.ExitOK, second.code, "exit 0 on a no-op replay too")
			assert.Equal(t, row.second, second.reply.Effect)
			if row.second == "noop" {
				assert.Equal(t, first.reply.id(), second.reply.id(), "the replay names the same order")
				assert.Contains(t, second.reply.Reason, "replayed")
			}
			assert.Len(t, w.pay.Charges(), row.charges)
			// The order is in the book.
			got := w.run(row.store, "get-order", "--id", first.reply.id())
			require.Equal(t, 0, got.code)
			assert.Equal(t, "noop", got.reply.Effect)
			assert.Equal(t, first.reply.id(), got.reply.id())
		})
	}
}

func TestKeyPassedDownstreamOnlyByCorrect(t *testing.T) {
	for _, store := range ordertool.Stores {
		t.Run(store, func(t *testing.T) {
			w := newWorld(t)
			require.Equal(t, 0, w.order(store, "--idempotency-key", "k-9").code)
			require.Equal(t, 0, w.run(store, "send-email", "--to", "ann@example.test", "--subject", "Hi", "--memo", "receipt idem-0000000000000002", "--idempotency-key", "k-10").code)
			effects := w.pay.Ledger().Effects()
			require.Len(t, effects, 1)
			mail := w.mail.sent()
			require.Len(t, mail, 1)
			if store == "correct" {
				assert.Equal(t, "k-9", effects[0].Key)
				assert.Equal(t, "k-10", mail[0].key)
			} else {
				assert.Empty(t, effects[0].Key, "the jsonl and sqlite stores keep the key in the tool")
				assert.Empty(t, mail[0].key)
			}
			assert.Equal(t, []string{"idem-0000000000000001"}, effects[0].Markers, "the memo is the charge's description")
		})
	}
}

func TestSendEmailRequest(t *testing.T) {
	w := newWorld(t)
	r := w.run("correct", "send-email", "--to", "ann@example.test", "--subject", "Your receipt", "--memo", "receipt idem-0000000000000003", "--idempotency-key", "k-1")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Equal(t, "created", r.reply.Effect)
	assert.Equal(t, "msg_000001", r.reply.id(), "the id the email API gave")
	mail := w.mail.sent()
	require.Len(t, mail, 1)
	assert.Equal(t, "/v3/mail/send", mail[0].path)
	want := map[string]any{
		"personalizations": []any{map[string]any{"to": []any{map[string]any{"email": "ann@example.test"}}}},
		"from":             map[string]any{"email": "shop@example.test"},
		"subject":          "Your receipt",
		"content":          []any{map[string]any{"type": "text/plain", "value": "receipt idem-0000000000000003"}},
	}
	assert.Equal(t, want, mail[0].body)
	again := w.run("correct", "send-email", "--to", "ann@example.test", "--subject", "Your receipt", "--memo", "receipt idem-0000000000000003", "--idempotency-key", "k-1")
	assert.Equal(t, "noop", again.reply.Effect)
	assert.Len(t, w.mail.sent(), 1)
}

func TestCorrectRefusesAMissingKey(t *testing.T) {
	w := newWorld(t)
	r := w.order("correct")
	assert.Equal(t, ordertool.ExitUsage, r.code)
	assert.False(t, r.reply.OK)
	assert.Equal(t, "key_required", r.reply.Error)
	assert.Contains(t, r.reply.Reason, "--store correct requires --idempotency-key KEY")
	assert.Contains(t, r.stderr, "requires --idempotency-key", "and says so to people")
	assert.Empty(t, w.pay.Charges())
}

func TestKeylessCalls(t *testing.T) {
	// Rows: a mutating call without a key, twice: the stores differ.
	rows := []struct {
		store   string
		charges int
		why     string
	}{
		{"none", 2, "no store"},
		{"jsonl", 2, "the jsonl store needs a request id; without one the call is unguarded"},
		{"sqlite", 1, "the sqlite store derives the key from the operation and its inputs"},
	}
	for _, row := range rows {
		t.Run(row.store, func(t *testing.T) {
			w := newWorld(t)
			require.Equal(t, 0, w.order(row.store).code)
			require.Equal(t, 0, w.order(row.store).code)
			assert.Len(t, w.pay.Charges(), row.charges, row.why)
		})
	}
}

func TestKeyReusedWithAnotherPayload(t *testing.T) {
	// Rows: the same key with another amount.
	rows := []struct {
		store string
		code  int
		what  string
	}{
		{"correct", ordertool.ExitFailed, "refused"},
		{"jsonl", 0, "replays the first order (no fingerprint)"},
		{"sqlite", 0, "replays the first order (no fingerprint)"},
	}
	for _, row := range rows {
		t.Run(row.store, func(t *testing.T) {
			w := newWorld(t)
			first := w.order(row.store, "--idempotency-key", "k-1")
			require.Equal(t, 0, first.code)
			r := w.run(row.store, "create-order", "--customer", "cus_1", "--amount", "999", "--memo", "x", "--idempotency-key", "k-1")
			assert.Equal(t, row.code, r.code, row.what)
			if row.code != 0 {
				assert.Equal(t, "key_reused", r.reply.Error)
			} else {
				assert.Equal(t, first.reply.id(), r.reply.id(), row.what)
			}
			assert.Len(t, w.pay.Charges(), 1)
		})
	}
}

func TestDryRun(t *testing.T) {
	for _, store := range []string{"jsonl", "sqlite", "correct"} {
		t.Run(store, func(t *testing.T) {
			w := newWorld(t)
			dry := w.order(store, "--idempotency-key", "k-1", "--dry-run")
			require.Equal(t, 0, dry.code, dry.stdout)
			assert.Equal(t, "would_create", dry.reply.Effect)
			assert.Contains(t, dry.reply.Changes, "would charge 500 usd to cus_1")
			assert.Empty(t, w.pay.Charges(), "a dry run charges nothing")
			real := w.order(store, "--idempotency-key", "k-1")
			assert.Equal(t, "created", real.reply.Effect, "the dry run did not consume the key")
			assert.Len(t, w.pay.Charges(), 1)
		})
	}
	t.Run("none", func(t *testing.T) {
		w := newWorld(t)
		r := w.order("none", "--dry-run")
		assert.Equal(t, ordertool.ExitUsage, r.code)
		assert.Equal(t, "no_dry_run", r.reply.Error)
		assert.Empty(t, w.pay.Charges())
	})
}

func TestDownstreamFailureIsATemporaryFailure(t *testing.T) {
	for _, store := range ordertool.Stores {
		t.Run(store, func(t *testing.T) {
			w := newWorld(t)
			w.pay.Arm(fakes.Rule{Action: fakes.FailBefore})
			r := w.order(store, "--idempotency-key", "k-1")
			assert.Equal(t, ordertool.ExitTempFail, r.code)
			assert.Equal(t, "downstream_unavailable", r.reply.Error)
			assert.Contains(t, r.reply.Reason, "retry with the same idempotency key")
			again := w.order(store, "--idempotency-key", "k-1")
			assert.Equal(t, 0, again.code, "the retry acts")
			assert.Equal(t, "created", again.reply.Effect)
			assert.Len(t, w.pay.Charges(), 1)
		})
	}
}

func TestAmbiguousDownstreamFailure(t *testing.T) {
	// The charge happens, then payments answers 503. Only the key passed
	// downstream saves the retry from charging twice.
	rows := []struct {
		store   string
		charges int
	}{
		{"correct", 1}, {"jsonl", 2}, {"sqlite", 2}, {"none", 2},
	}
	for _, row := range rows {
		t.Run(row.store, func(t *testing.T) {
			w := newWorld(t)
			w.pay.Arm(fakes.Rule{Action: fakes.FailAfter})
			require.Equal(t, ordertool.ExitTempFail, w.order(row.store, "--idempotency-key", "k-1").code)
			require.Equal(t, 0, w.order(row.store, "--idempotency-key", "k-1").code)
			assert.Len(t, w.pay.Ledger().Effects(), row.charges)
		})
	}
}

func TestAmbiguousFailureKeepsTheKeyBoundToItsInputs(t *testing.T) {
	// The charge happens, then payments answers 503. The same key with
	// another amount must still be refused: were it to take the key over,
	// payments would refuse the reused key, that refusal would be stored,
	// and the retry of the first order would never learn of its charge.
	w := newWorld(t)
	w.pay.Arm(fakes.Rule{Action: fakes.FailAfter})
	require.Equal(t, ordertool.ExitTempFail, w.order("correct", "--idempotency-key", "k-1").code)

	other := w.run("correct", "create-order", "--customer", "cus_1", "--amount", "700", "--memo", "order idem-0000000000000001", "--idempotency-key", "k-1")
	assert.Equal(t, ordertool.ExitFailed, other.code, other.stdout)
	assert.Equal(t, "key_reused", other.reply.Error)

	retry := w.order("correct", "--idempotency-key", "k-1")
	require.Equal(t, 0, retry.code, retry.stdout)
	assert.Equal(t, "created", retry.reply.Effect, "the first success the caller sees")
	assert.Len(t, w.pay.Charges(), 1, "the charge the failed call made, replayed by payments")
}

// keyFile is where the correct store keeps key's files.
func keyFile(state, key, ext string) string {
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(state, ordertool.KeysDir, hex.EncodeToString(sum[:16])+ext)
}

func TestCorrectTakesOverTheClaimOfADeadProcess(t *testing.T) {
	// A process charged with key k-1, then died before recording it: its
	// in_progress record is left, and its lock went with it.
	w := newWorld(t)
	require.Equal(t, 0, w.order("correct", "--idempotency-key", "k-1").code)
	require.Len(t, w.pay.Charges(), 1)
	rec := keyFile(w.state, "k-1", ".json")
	b, err := os.ReadFile(rec)
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(b, &doc))
	doc["state"], doc["reply"] = "in_progress", nil
	b, _ = json.Marshal(doc)
	require.NoError(t, os.WriteFile(rec, b, 0o600))

	r := w.order("correct", "--idempotency-key", "k-1")
	require.Equal(t, 0, r.code, r.stdout)
	assert.Equal(t, "created", r.reply.Effect, "the first success the caller sees")
	assert.Len(t, w.pay.Charges(), 1, "payments replayed the dead process's charge: the key went downstream")
	assert.Equal(t, "noop", w.order("correct", "--idempotency-key", "k-1").reply.Effect)
}

func TestCorrectWaitsForAKeyInFlight(t *testing.T) {
	w := newWorld(t)
	require.NoError(t, os.MkdirAll(filepath.Join(w.state, ordertool.KeysDir), 0o700))
	f, err := os.OpenFile(keyFile(w.state, "k-1", ".lock"), os.O_RDWR|os.O_CREATE, 0o600)
	require.NoError(t, err)
	defer f.Close()
	require.NoError(t, syscall.Flock(int(f.Fd()), syscall.LOCK_EX), "another process holds the key")
	r := w.order("correct", "--idempotency-key", "k-1", "--wait", "20ms")
	assert.Equal(t, ordertool.ExitTempFail, r.code)
	assert.Equal(t, "in_flight", r.reply.Error)
	assert.Empty(t, w.pay.Charges())
	require.NoError(t, syscall.Flock(int(f.Fd()), syscall.LOCK_UN))
	assert.Equal(t, 0, w.order("correct", "--idempotency-key", "k-1", "--wait", "20ms").code, "once released, the key is free")
}

func TestJSONLReRunsARecordLeftInProgress(t *testing.T) {
	// The jsonl store retries an in_progress record, since its writer may
	// have crashed mid-run: if it crashed after charging, the retry charges
	// again.
	w := newWorld(t)
	path := filepath.Join(w.state, ordertool.JSONLFile)
	require.NoError(t, os.WriteFile(path, []byte(`{"id":"k-1","state":"in_progress","ts":1}`+"\n"), 0o600))
	r := w.order("jsonl", "--idempotency-key", "k-1")
	require.Equal(t, 0, r.code)
	assert.Equal(t, "created", r.reply.Effect)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	require.Len(t, lines, 3)
	assert.Contains(t, lines[1], `"state":"in_progress"`)
	assert.Contains(t, lines[2], `"state":"complete"`)
}

func TestSQLiteTTL(t *testing.T) {
	w := newWorld(t)
	require.Equal(t, 0, w.order("sqlite", "--idempotency-key", "k-1", "--ttl", "1ns").code)
	r := w.order("sqlite", "--idempotency-key", "k-1", "--ttl", "1ns")
	assert.Equal(t, "created", r.reply.Effect, "an expired key acts again")
	assert.Len(t, w.pay.Charges(), 2)
}

func TestGetOrderOfAnUnknownID(t *testing.T) {
	w := newWorld(t)
	r := w.run("correct", "get-order", "--id", "ord_nope")
	assert.Equal(t, 0, r.code, "nothing found is an answer")
	assert.True(t, r.reply.OK)
	assert.Equal(t, "noop", r.reply.Effect)
	assert.Equal(t, "null", string(r.reply.Data))
	assert.Contains(t, r.reply.Reason, `no order with id "ord_nope"`)
}

func TestUsage(t *testing.T) {
	// Rows: bad invocations; each is exit 2 with a JSON reply that says why.
	rows := []struct {
		args []string
		want string
	}{
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"--store", "redis", "get-order", "--id", "x"}, `unknown store "redis"`},
		{[]string{"create-order", "--amount", "5"}, "--customer is required"},
		{[]string{"create-order", "--customer", "c", "--amount", "-5"}, "--amount must be a positive number"},
		{[]string{"create-order", "--customer", "c", "--amount", "5", "extra"}, `unexpected argument "extra"`},
		{[]string{"get-order", "--idempotency-key", "k"}, "flag provided but not defined"},
		{[]string{"send-email", "--to", "nobody", "--subject", "s"}, "--to must be an email address"},
		{[]string{"--bogus"}, "flag provided but not defined: -bogus"},
	}
	for _, row := range rows {
		t.Run(strings.Join(row.args, " "), func(t *testing.T) {
			w := newWorld(t)
			r := w.run("correct", row.args...)
			assert.Equal(t, ordertool.ExitUsage, r.code)
			assert.False(t, r.reply.OK)
			assert.Contains(t, r.reply.Reason, row.want)
		})
	}
}

func TestHelpListsTheCommands(t *testing.T) {
	w := newWorld(t)
	for _, args := range [][]string{{"help"}, {"--help"}} {
		r := w.runRaw(args...)
		assert.Equal(t, 0, r.code)
		assert.Contains(t, r.stdout, "Commands:\n  create-order ")
		assert.Contains(t, r.stdout, "\n  send-email ")
		assert.Contains(t, r.stdout, "\n  get-order ")
	}
	r := w.runRaw("create-order", "--help")
	assert.Equal(t, 0, r.code)
	assert.Contains(t, r.stdout, "-idempotency-key")
}
