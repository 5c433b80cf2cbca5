package reports

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/record"
)

// TestTimelineLayout checks the geometry of every finding's timeline in
// the fixture: bars and marks inside the plot, one bar per attempt (one
// per burst), one mark per effect, nothing overlapping in a row.
func TestTimelineLayout(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "result.json"))
	require.NoError(t, err)
	var res record.Result
	require.NoError(t, json.Unmarshal(b, &res))
	n := 0
	for _, tr := range res.Targets {
		for _, f := range tr.Findings {
			tl := buildTimeline(f)
			require.NotNil(t, tl, f.Message)
			n++
			groups := 0
			for _, in := range f.Evidence.Intents {
				groups += len(attemptGroups(in))
			}
			assert.Len(t, tl.Bars, groups, "a bar per attempt, a burst as one")
			assert.Len(t, tl.Marks, len(f.Evidence.Effects), "a mark per effect")
			assert.Len(t, tl.Lanes, len(f.Evidence.Intents)+1, "a lane per intent and the ledger")
			for _, bar := range tl.Bars {
				assert.GreaterOrEqual(t, bar.X, tl.PlotX-0.01)
				assert.LessOrEqual(t, bar.X+bar.W, tl.PlotX+tl.PlotW+3.01)
				assert.GreaterOrEqual(t, bar.W, 3.0)
				assert.Less(t, bar.Y+bar.H, tl.Height)
			}
			for _, m := range tl.Marks {
				assert.GreaterOrEqual(t, m.X, tl.PlotX-0.01)
				assert.LessOrEqual(t, m.X, tl.PlotX+tl.PlotW+0.01)
			}
			for i, a := range tl.Bars {
				for _, c := range tl.Bars[i+1:] {
					if a.Y == c.Y {
						assert.False(t, a.X+a.W-3 > c.X && c.X+c.W-3 > a.X && a.W > 3 && c.W > 3, "bars in one row overlap")
					}
				}
			}
		}
	}
	assert.Equal(t, 5, n)
}

// TestTimelineStacksOverlappingAttempts: attempts that overlap in time
// (an earlier one still running) go on separate rows.
func TestTimelineStacksOverlappingAttempts(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	f := record.Finding{Evidence: record.Evidence{
		Intents: []record.Intent{{ID: 1, Marker: "m", Attempts: []record.Attempt{
			{N: 1, Start: at(0), End: at(100), Fault: "client-timeout", LedgerBefore: 0, LedgerAfter: 1, Reply: record.Reply{Outcome: record.Info, Forwarded: true}},
			{N: 2, Start: at(50), End: at(60), LedgerBefore: 0, LedgerAfter: 1, Reply: record.Reply{Outcome: record.OK, Status: 200, Forwarded: true, HasEffect: true, Effect: "created"}},
			{N: 3, Start: at(100), End: at(120), LedgerBefore: 1, LedgerAfter: 1, Reply: record.Reply{Outcome: record.OK, Status: 200, Forwarded: true, HasEffect: true, Effect: "noop"}},
		}}},
		Effects: []fakes.Effect{{Seq: 1, Fake: "payments", Kind: "charge", ID: "ch_1", Markers: []string{"m"}, At: at(55)}},
	}}
	tl := buildTimeline(f)
	require.NotNil(t, tl)
	require.Len(t, tl.Bars, 3)
	assert.NotEqual(t, tl.Bars[0].Y, tl.Bars[1].Y, "attempt 2 began while attempt 1 ran")
	assert.Equal(t, tl.Bars[0].Y, tl.Bars[2].Y, "attempt 3 began when attempt 1 ended")
	assert.Equal(t, "client-timeout", tl.Bars[0].Fault)
	assert.Equal(t, "o-info", tl.Bars[0].Class)
	assert.Equal(t, "o-ok", tl.Bars[1].Class)
	require.Len(t, tl.Marks, 1)
	assert.InDelta(t, tl.PlotX+tl.PlotW*55/120, tl.Marks[0].X, 0.01, "the effect at its instant")
	assert.False(t, tl.Marks[0].Stray)

	steps := Counterexample(f)
	require.Len(t, steps, 1)
	require.Len(t, steps[0].Steps, 3)
	assert.Equal(t, "attempt 1 · +0 · fault client-timeout · no reply (info) · recorded: payments charge ch_1", steps[0].Steps[0].String(),
		"the effect landed in attempt 1's window (which attempt caused it cannot be told; the first is named)")
	assert.Equal(t, `attempt 3 · +100ms · 200 (ok) · effect "noop" · nothing recorded`, steps[0].Steps[2].String())
}
