package main

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/reports"
)

// TestDemoSameSeedTwice runs the whole demo twice with its seed. The
// first run writes every report format: every reference target must get
// the score it was built for, with valid reports (checkDemoAsBuilt). The
// two runs must give identical scores and identical check verdicts for
// every reference target: a verdict that flips between two runs of one
// seed is a bug. Races a target can win or lose are decided by the harness
// (the fakes wait for a target's own cancellation before they answer; a
// client timeout lets a command run to its end; racy probes are tried
// several times; bursts are many; a queue consumer's burst reaches its
// downstream all at once), and this is where it shows. It needs the
// machine to itself: under the race detector every call is several
// times slower, which changes nothing a correct harness sees but costs
// many minutes, so .ci/run runs it without (go test -run
// '^TestDemoSameSeedTwice$' ./cmd/idemcheck/), before the race suite.
func TestDemoSameSeedTwice(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole demo twice")
	}
	if raceOn {
		t.Skip("run without -race: .ci/run runs it so (go test -run '^TestDemoSameSeedTwice$' ./cmd/idemcheck/)")
	}
	verdicts := func(out string) map[string]string {
		var rep reports.Report
		require.NoError(t, json.Unmarshal([]byte(out), &rep))
		got := map[string]string{}
		for _, tr := range rep.Targets {
			got[tr.Name] = fmt.Sprintf("score %d", tr.Score)
			for _, c := range tr.Checks {
				got[tr.Name+" "+c.ID] = string(c.Status)
			}
		}
		return got
	}
	demo := func(args ...string) string {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		code, out, errs := runCLI(t, ctx, append([]string{"demo", "--quiet"}, args...)...)
		require.Equal(t, exitOK, code, errs)
		return out
	}
	dir := t.TempDir()
	out := demo("--format", "json,text,junit,md,html", "--out", dir)
	checkDemoAsBuilt(t, dir, out)
	requireNoTargetsLeft(t)
	first := verdicts(out)
	second := verdicts(demo("--format", "json"))
	require.NotEmpty(t, first)
	for k, v := range first {
		assert.Equal(t, v, second[k], "%s: %s in the first run, %s in the second", k, v, second[k])
	}
	assert.Len(t, second, len(first))
	requireNoTargetsLeft(t)
}
