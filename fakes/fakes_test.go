package fakes_test

import (
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/fakes"
)

func TestMarkersAreSeededAndFound(t *testing.T) {
	a := fakes.NewMarker(rand.New(rand.NewPCG(1, 2)))
	b := fakes.NewMarker(rand.New(rand.NewPCG(1, 2)))
	c := fakes.NewMarker(rand.New(rand.NewPCG(3, 4)))
	assert.Equal(t, a, b, "one seed, one marker")
	assert.NotEqual(t, a, c)
	assert.Regexp(t, `^idem-[0-9a-f]{16}$`, a)

	cases := []struct {
		why  string
		in   string
		want []string
	}{
		{"none", "nothing here", nil},
		{"one inside JSON", `{"memo":"order ` + a + `"}`, []string{a}},
		{"two, in order, each once", c + " " + a + " " + c, []string{c, a}},
		{"too short is not a marker", "idem-0123", nil},
		{"upper case is not a marker", "IDEM-0123456789ABCDEF", nil},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, fakes.FindMarkers([]byte(tc.in)), tc.why)
	}
}

func TestLedgerRecordsInOrderAndObserversSeeEachEffect(t *testing.T) {
	l := fakes.NewLedger()
	var seen []int64
	var mu sync.Mutex
	cancel := l.Observe(func(e fakes.Effect) {
		mu.Lock()
		seen = append(seen, e.Seq)
		mu.Unlock()
	})
	e1 := l.Record(fakes.Effect{Fake: "payments", Kind: "charge", Markers: []string{"idem-0000000000000001"}})
	e2 := l.Record(fakes.Effect{Fake: "payments", Kind: "charge"})
	cancel()
	l.Record(fakes.Effect{Fake: "email", Kind: "message", Markers: []string{"idem-0000000000000001"}})

	assert.Equal(t, int64(1), e1.Seq)
	assert.Equal(t, int64(2), e2.Seq)
	assert.False(t, e1.At.IsZero(), "the ledger stamps the time")
	assert.Equal(t, []int64{1, 2}, seen, "an observer sees effects until it is cancelled")
	assert.Equal(t, int64(3), l.LastSeq())
	assert.Len(t, l.Effects(), 3)
	assert.Len(t, l.Since(1), 2)
	assert.Empty(t, l.Since(3))
	assert.Len(t, l.Since(-5), 3)
	assert.Len(t, l.ByMarker("idem-0000000000000001"), 2)
}

func TestLedgerIsSafeForConcurrentUse(t *testing.T) {
	l := fakes.NewLedger()
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.Record(fakes.Effect{Fake: "payments", Kind: "charge"})
			_ = l.Effects()
		}()
	}
	wg.Wait()
	effs := l.Effects()
	require.Len(t, effs, 50)
	for i, e := range effs {
		assert.Equal(t, int64(i+1), e.Seq, "sequence numbers have no gaps")
	}
}

func TestRulesMatchByMarkerAndCount(t *testing.T) {
	var rs fakes.Rules
	rs.Arm(fakes.Rule{Marker: "idem-aaaaaaaaaaaaaaaa", Times: 2, Action: fakes.FailBefore})
	rs.Arm(fakes.Rule{Action: fakes.Delay})

	r, ok := rs.Take([]string{"idem-aaaaaaaaaaaaaaaa"})
	require.True(t, ok)
	assert.Equal(t, fakes.FailBefore, r.Action, "the marker's rule comes first")
	r, _ = rs.Take([]string{"idem-aaaaaaaaaaaaaaaa"})
	assert.Equal(t, fakes.FailBefore, r.Action, "Times: 2")
	r, _ = rs.Take([]string{"idem-aaaaaaaaaaaaaaaa"})
	assert.Equal(t, fakes.Delay, r.Action, "used up: the catch-all rule is next")
	_, ok = rs.Take(nil)
	assert.False(t, ok, "the catch-all fired once (Times 0 means 1)")

	rs.Arm(fakes.Rule{Action: fakes.FailAfter, Times: 5})
	rs.Clear()
	_, ok = rs.Take(nil)
	assert.False(t, ok, "Clear disarms everything")
}

// TestRulesSayWhetherTheyFired: a rule armed for a marker whose request
// never came has fired 0 times, by its handle and by its marker, even once
// disarmed; one whose request came says how often it acted.
func TestRulesSayWhetherTheyFired(t *testing.T) {
	const a, b = "idem-aaaaaaaaaaaaaaaa", "idem-bbbbbbbbbbbbbbbb"
	var rs fakes.Rules
	ha := rs.Arm(fakes.Rule{Marker: a, Times: 2, Action: fakes.FailBefore})
	hb := rs.Arm(fakes.Rule{Marker: b, Action: fakes.FailAfter})
	assert.Zero(t, ha.Fired())
	assert.Zero(t, rs.Fired(a))

	_, ok := rs.Take([]string{a})
	require.True(t, ok)
	assert.Equal(t, 1, ha.Fired(), "acted once")
	assert.Equal(t, 1, rs.Fired(a))
	_, _ = rs.Take([]string{a})
	_, ok = rs.Take([]string{a})
	assert.False(t, ok, "used up")
	assert.Equal(t, 2, ha.Fired(), "a used-up rule keeps its count")
	assert.Equal(t, 2, rs.Fired(a))

	rs.ClearMarker(b)
	assert.Zero(t, hb.Fired(), "armed, never matched, then disarmed: it never fired")
	assert.Zero(t, rs.Fired(b))

	// A second rule for the same marker adds to the marker's count: read
	// it before and after an attempt.
	before := rs.Fired(a)
	h2 := rs.Arm(fakes.Rule{Marker: a, Action: fakes.Pass})
	_, _ = rs.Take([]string{a})
	assert.Equal(t, 1, rs.Fired(a)-before)
	assert.Equal(t, 1, h2.Fired())

	var none *fakes.Armed
	assert.Zero(t, none.Fired())
}

// TestProbabilityRulesFireOnlyWhenDrawn: a request a probabilistic rule
// spares does not count as a firing.
func TestProbabilityRulesFireOnlyWhenDrawn(t *testing.T) {
	const a = "idem-aaaaaaaaaaaaaaaa"
	var rs fakes.Rules
	rs.Seed(3)
	h := rs.Arm(fakes.Rule{Marker: a, Action: fakes.FailBefore, Probability: 0.5, Times: 1000})
	acted := 0
	for range 100 {
		if _, ok := rs.Take([]string{a}); ok {
			acted++
		}
	}
	require.Greater(t, acted, 0)
	require.Less(t, acted, 100)
	assert.Equal(t, acted, h.Fired())
	assert.Equal(t, acted, rs.Fired(a))
}

// TestFiredAt: a fake that cannot count its firings says so.
func TestFiredAt(t *testing.T) {
	_, known := fakes.FiredAt(silentFake{}, "idem-aaaaaaaaaaaaaaaa")
	assert.False(t, known)
}

// silentFake is a Fake without FireCounter.
type silentFake struct{}

func (silentFake) Name() string          { return "silent" }
func (silentFake) URL() string           { return "" }
func (silentFake) Ledger() *fakes.Ledger { return nil }
func (silentFake) Arm(fakes.Rule)        {}
func (silentFake) Disarm()               {}
func (silentFake) DisarmMarker(string)   {}
func (silentFake) Close() error          { return nil }

// TestProbabilityRulesFollowTheSeed: a probabilistic fault fires on some
// requests, the same ones for the same seed, and spared requests do not use
// the rule up.
func TestProbabilityRulesFollowTheSeed(t *testing.T) {
	fire := func(seed uint64) []bool {
		var rs fakes.Rules
		rs.Seed(seed)
		rs.Arm(fakes.Rule{Action: fakes.FailBefore, Probability: 0.3, Times: 1000})
		out := make([]bool, 200)
		for i := range out {
			_, out[i] = rs.Take(nil)
		}
		return out
	}
	a, b, c := fire(7), fire(7), fire(8)
	assert.Equal(t, a, b, "one seed, the same faults")
	assert.NotEqual(t, a, c)
	n := 0
	for _, x := range a {
		if x {
			n++
		}
	}
	assert.InDelta(t, 60, n, 30, "about 30%% of 200 requests")
}

func FuzzFindMarkers(f *testing.F) {
	f.Add([]byte("idem-0123456789abcdef"))
	f.Add([]byte(`{"a":"idem-0123456789abcdefidem-fedcba9876543210"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		seen := map[string]bool{}
		for _, m := range fakes.FindMarkers(b) {
			if len(m) != 21 || seen[m] {
				t.Fatalf("bad or repeated marker %q", m)
			}
			seen[m] = true
		}
	})
}

func TestRulesSkipTheCallsBeforeTheirPoint(t *testing.T) {
	var rs fakes.Rules
	m := []string{"idem-aaaaaaaaaaaaaaaa"}
	h := rs.Arm(fakes.Rule{Marker: m[0], Skip: 1, Action: fakes.ResetAfter})
	if _, ok := rs.Take(m); ok {
		t.Fatal("the first call matched a rule that skips it")
	}
	if h.Fired() != 0 || rs.Fired(m[0]) != 0 {
		t.Fatalf("a skipped call counted as fired: %d, %d", h.Fired(), rs.Fired(m[0]))
	}
	if r, ok := rs.Take(m); !ok || r.Action != fakes.ResetAfter {
		t.Fatalf("the second call: %v %v, want the rule", r, ok)
	}
	if _, ok := rs.Take(m); ok {
		t.Fatal("the rule acted past its Times")
	}
	if h.Fired() != 1 {
		t.Fatalf("fired %d, want 1", h.Fired())
	}
}
