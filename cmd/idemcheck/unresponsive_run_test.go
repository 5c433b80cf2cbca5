package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/record"
)

// unresponsiveBound is how long a run over one target that never answers,
// at timeout: 2s, may take in all: three attempts of 2 s, and the target's
// start and stop.
const unresponsiveBound = 15 * time.Second

// TestUnresponsiveTargets: a CLI tool that hangs (after printing on both
// streams) and an HTTP server that is ready and never answers a request
// are each, at timeout: 2s, declared unresponsive in under 15 s: exit 3,
// the reason saying so; idemcheck's own kill of the tool at its timeout,
// and its fault proxy's 502, are not taken for answers, and the
// key_format advice is not given. The wait is told on stderr as it goes.
// One whose reply body never ends is untestable as soon as: every reply
// cut at what idemcheck keeps, or not whole when the timeout came on a
// machine too slow to read to the cut (one way of failing: the proxy
// counts what follows the cut for a quarter of the time left at most),
// whether the proxy or a burst's copy read it. One that sends its body
// too slowly ever to reach the cut is untestable as soon as too, its
// replies begun, never whole: not silence.
func TestUnresponsiveTargets(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	require.NoError(t, err)
	const silent = `never answered|failed its first 3 attempts the same way \(last: no reply within 2s`
	for _, tc := range []struct {
		name, target string
		// reason is the reason's pattern; told, whether a wait is told.
		reason string
		told   bool
	}{
		{"hang", fmt.Sprintf(`  - name: hang
    kind: cli
    command: [%[1]q]
    env: {%[2]s: hang}
    timeout: 2s
    operations:
      - name: create-order
        mutating: true
        args: [create-order, --memo, "order {{marker}}"]
`, exe, hostileEnv), silent, true},
		{"mute", hostileHTTPTarget(exe, "mute", "    timeout: 2s\n"), silent, true},
		{"endless", hostileHTTPTarget(exe, "endless", "    timeout: 2s\n"),
			`failed its first 3 attempts the same way \(last: the reply's body (was cut|did not arrive whole): `, false},
		{"trickle", hostileHTTPTarget(exe, "trickle", "    timeout: 2s\n"),
			`failed its first 3 attempts the same way \(last: the reply's body did not arrive whole: `, false},
	} {
		// One at a time: each run is held to a bound of wall time, and
		// the endless target keeps a processor busy while it runs.
		t.Run(tc.name, func(t *testing.T) {
			cfg := writeConfigFile(t, "unresponsive.yaml", "version: 1\ntargets:\n"+tc.target)
			out := t.TempDir()
			start := time.Now()
			code, _, errs := runCLI(t, t.Context(), "run", "-c", cfg, "--trials", "0", "--format", "json", "--out", out)
			took := time.Since(start)
			t.Logf("%s: exit %d in %s", tc.name, code, took.Round(time.Millisecond))
			require.Equal(t, exitHarness, code, errs)
			assert.Less(t, took, unresponsiveBound, "declared unresponsive at once")
			// Silence, or the same failure three times over (a burst's
			// copies count as one attempt): either way, no answer.
			assert.Regexp(t, tc.reason, errs, "the reason")
			assert.NotContains(t, errs, "key_format", "no advice about keys for a target that never answered")
			if tc.told {
				assert.Contains(t, errs, "attempts unanswered", "the wait is told as it goes")
			}
			res, err := record.ReadResultFile(filepath.Join(out, record.ResultFile))
			require.NoError(t, err)
			require.Len(t, res.Targets, 1)
			assert.Regexp(t, tc.reason, res.Targets[0].Error)
		})
	}
}
