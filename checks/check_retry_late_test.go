package checks_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/record"
)

// lateRecord builds what retry.late's probe makes: a first intent, n
// intents with fresh keys, and late retries (newest first, then the
// first) of the intents after which each of distances other keys came,
// wait after the fresh keys. forgets says whether the store forgot a key
// after d other keys and t: its retry then charges again.
func lateRecord(n int, distances []int, wait time.Duration, forgets func(d int, t time.Duration) bool) *record.Record {
	b := newRec()
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tick := func(id int) {
		in := b.rec.Intent(id)
		a := &in.Attempts[len(in.Attempts)-1]
		a.Start, a.End = clock, clock.Add(time.Millisecond)
		clock = clock.Add(2 * time.Millisecond)
	}
	late := map[int]bool{}
	for _, d := range distances {
		late[n-d] = true
	}
	ids := []int{b.intent(record.RoleLate, opCharge)}
	b.try(ids[0], ok(201, "created", "ord_0"), mine())
	tick(ids[0])
	for j := 1; j <= n; j++ {
		role := record.RoleFiller
		if late[j] {
			role = record.RoleLate
		}
		id := b.intent(role, opCharge)
		b.try(id, ok(201, "created", "ord_x"), mine())
		tick(id)
		ids = append(ids, id)
	}
	clock = clock.Add(wait)
	order := []int{}
	for j := n; j >= 1; j-- {
		if late[j] {
			order = append(order, j)
		}
	}
	for _, j := range append(order, 0) {
		id := ids[j]
		b.rec.Intent(id).Waited = wait
		since := clock.Sub(b.rec.Intent(id).Attempts[0].End)
		if forgets(n-j, since) {
			b.try(id, ok(201, "created", "ord_y"), mine())
		} else {
			b.try(id, ok(201, "noop", "ord_x"))
		}
		tick(id)
	}
	return b.done()
}

func retryLateCases() []checkCase {
	lru := func(limit int) func(int, time.Duration) bool {
		return func(d int, _ time.Duration) bool { return d >= limit }
	}
	ttl := func(keep time.Duration) func(int, time.Duration) bool {
		return func(_ int, t time.Duration) bool { return t >= keep }
	}
	return []checkCase{
		{
			why:  "a store bounded to 8 keys: the retry after 8 other keys charges again, the one after 4 replays",
			rec:  lateRecord(80, []int{1, 2, 4, 8, 16, 32, 64}, 2500*time.Millisecond, lru(8)),
			fail: map[string][]record.Severity{checks.CheckRetryLate: {critical}},
			msgs: map[string][]string{checks.CheckRetryLate: {"after 8 other keys"}},
			skip: []string{checks.CheckRetrySequential},
		},
		{
			why:  "a store bounded to 64 keys: between 32 and 64",
			rec:  lateRecord(80, []int{1, 2, 4, 8, 16, 32, 64}, 2500*time.Millisecond, lru(64)),
			fail: map[string][]record.Severity{checks.CheckRetryLate: {critical}},
			msgs: map[string][]string{checks.CheckRetryLate: {"after 64 other keys and at least 2.5s", "after 32 other keys still replayed: it keeps somewhere between 33 and 64 keys"}},
		},
		{
			why:  "a store that keeps keys for 1s: forgotten after a single other key, by age",
			rec:  lateRecord(80, []int{1, 2, 4, 8, 16, 32, 64}, 2500*time.Millisecond, ttl(time.Second)),
			fail: map[string][]record.Severity{checks.CheckRetryLate: {critical}},
			msgs: map[string][]string{checks.CheckRetryLate: {"after 1 other key and at least 2.5s", "even after a single other key: it keeps keys for less than 2.5s, or none at all"}},
		},
		{
			why:  "a store that keeps keys for 1s, retried with no other key in between: said so, not \"after a single other key\"",
			rec:  lateRecord(8, []int{0, 1, 2, 4}, 2500*time.Millisecond, ttl(time.Second)),
			fail: map[string][]record.Severity{checks.CheckRetryLate: {critical}},
			msgs: map[string][]string{checks.CheckRetryLate: {"after 0 other keys and at least 2.5s", "with no other key in between: it keeps keys for less than 2.5s, or none at all"}},
		},
		{
			why:  "a store that keeps every key: every late retry replays",
			rec:  lateRecord(80, []int{1, 2, 4, 8, 16, 32, 64}, 2500*time.Millisecond, func(int, time.Duration) bool { return false }),
			pass: []string{checks.CheckRetryLate},
		},
		{
			why:  "a store bounded to 2 keys: kept after 1 other key, forgotten after 2 (not \"between 2 and 2\")",
			rec:  lateRecord(80, []int{1, 2, 4, 8, 16, 32, 64}, 0, lru(2)),
			fail: map[string][]record.Severity{checks.CheckRetryLate: {critical}},
			msgs: map[string][]string{checks.CheckRetryLate: {"the key store forgot the key; a retry after 1 other key still replayed: it keeps 2 keys"}},
		},
		{
			why: "regression: a duplicate in the intent's first two attempts, and a late retry that replayed, is not the key store forgetting",
			rec: func() *record.Record {
				b := newRec()
				clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
				at := func(a record.Attempt) record.Attempt {
					a.Start, a.End = clock, clock.Add(time.Millisecond)
					clock = clock.Add(2 * time.Millisecond)
					return a
				}
				i := b.intent(record.RoleLate, opCharge)
				b.try(i, at(unknown(0)), mine()).try(i, at(ok(201, "created", "ord_1")), mine())
				for range 2 {
					b.try(b.intent(record.RoleFiller, opCharge), at(ok(201, "created", "ord_x")), mine())
				}
				b.try(i, at(ok(201, "noop", "ord_1")))
				return b.done()
			}(),
			pass: []string{checks.CheckRetryLate},
		},
		{
			why:  "no late retry was made",
			rec:  sequentialOK(),
			skip: []string{checks.CheckRetryLate},
		},
	}
}

// A late retry that the target answers as a new result of its own making
// ("created", another order) forgot the key, even when the downstream,
// given the same key as before, charged nothing again: retry.late says
// so, and effect.field, whose "created" was honest, stays quiet. A late
// retry that replays the first result is no finding.
func TestLateRetryAnsweredAsANewResultForgotTheKey(t *testing.T) {
	build := func(late record.Attempt) *record.Record {
		b := newRec()
		clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		i := b.intent(record.RoleLate, opCharge)
		b.try(i, ok(201, "created", "ord_1"), keyed("order:idk-0001"))
		j := b.intent(record.RoleFiller, opCharge)
		b.try(j, ok(201, "created", "ord_2"), keyed("order:idk-0002"))
		b.try(i, late)
		b.rec.Intent(i).Waited = 2500 * time.Millisecond
		in, other := b.rec.Intent(i), b.rec.Intent(j)
		in.Attempts[0].Start, in.Attempts[0].End = clock, clock.Add(time.Millisecond)
		other.Attempts[0].Start, other.Attempts[0].End = clock.Add(2*time.Millisecond), clock.Add(3*time.Millisecond)
		in.Attempts[1].Start, in.Attempts[1].End = clock.Add(3*time.Second), clock.Add(3*time.Second+time.Millisecond)
		return b.done()
	}
	results, found := verdicts(t, build(ok(201, "created", "ord_3")))
	require.Len(t, found[checks.CheckRetryLate], 1)
	f := found[checks.CheckRetryLate][0]
	assert.Equal(t, record.Critical, f.Severity)
	assert.Contains(t, f.Message, `after 1 other key and at least 2.5s was answered as a new result (ord_3, "created") where the intent's first success was ord_1: the key store forgot the key`)
	assert.Contains(t, f.Message, "(1 of 1 late retries made a new result; its downstream call was not made again, or not acted on: charge ch_000001 alone was recorded)")
	assert.Empty(t, found[checks.CheckEffectField], "it said created, and made a new result")
	assert.NotEqual(t, record.StatusFail, results[checks.CheckEffectField].Status)

	_, found = verdicts(t, build(ok(201, "noop", "ord_1")))
	assert.Empty(t, found[checks.CheckRetryLate])
	assert.Empty(t, found[checks.CheckEffectField])

	// "created" for the first result, and nothing new recorded: the reply
	// misstates, and the finding says the key store may have forgotten
	// the key behind a downstream that replayed by it.
	_, found = verdicts(t, build(ok(201, "created", "ord_1")))
	assert.Empty(t, found[checks.CheckRetryLate], "the same result: not shown to be new")
	if assert.Len(t, found[checks.CheckEffectField], 1) {
		assert.Contains(t, found[checks.CheckEffectField][0].Message, "this was a late retry, after other keys or a delay: a key store that forgot the key acts again and says so")
	}

	// Another payload took the key in between: the late retry replays
	// what the key now holds, key.mismatch's finding, no forgotten key.
	rec := build(ok(201, "created", "ord_m"))
	b := &recBuilder{rec: *rec}
	m := b.intent(mismatch, opCharge, 1)
	b.try(m, ok(201, "created", "ord_m"), mine())
	_, found = verdicts(t, b.done())
	assert.Empty(t, found[checks.CheckRetryLate], "the key was taken by another payload")

	// The target's own data, read by an observer, says it acted once.
	b = newRec()
	i := b.intent(record.RoleLate, opCharge)
	b.try(i, ok(201, "created", "ord_1"), fakes.Effect{Fake: "orders-db", Kind: "order", Observed: true})
	b.try(b.intent(record.RoleFiller, opCharge), ok(201, "created", "ord_2"), fakes.Effect{Fake: "orders-db", Kind: "order", Observed: true})
	b.try(i, ok(201, "created", "ord_3"))
	_, found = verdicts(t, b.done())
	assert.Empty(t, found[checks.CheckRetryLate], "one row: an identity that changes is not a second order")
}
