package main

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stampedWriter keeps each line written to it with the time it came.
type stampedWriter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	lines []stampedLine
}

type stampedLine struct {
	at   time.Time
	text string
}

func (w *stampedWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(b)
	for {
		i := bytes.IndexByte(w.buf.Bytes(), '\n')
		if i < 0 {
			break
		}
		w.lines = append(w.lines, stampedLine{time.Now(), string(w.buf.Next(i + 1))})
	}
	return len(b), nil
}

// TestFailingToolIsUntestableAtOnce: a slow command-line tool that fails
// every call (a service it needs is down) is reported untestable after its
// operation's first attempts failed alike, not after every probe, and the
// run says how it goes at least every 2 seconds meanwhile.
func TestFailingToolIsUntestableAtOnce(t *testing.T) {
	const each = 1500 * time.Millisecond
	cfg := writeConfigFile(t, "failing.yaml", fmt.Sprintf(`version: 1
targets:
  - name: charger
    kind: cli
    command: ["sh", "-c", "sleep %g; echo 'error: payment service unreachable (request %%s)' \"$$\" >&2; exit 1", "charger"]
    operations:
      - name: charge
        mutating: true
        args: [charge, --memo, "order {{marker}}"]
`, each.Seconds()))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var stdout bytes.Buffer
	stderr := &stampedWriter{}
	start := time.Now()
	code := run(ctx, []string{"run", "-c", cfg, "--trials", "0", "--seed", "3", "--format", "json", "--out", filepath.Join(t.TempDir(), "out")}, strings.NewReader(""), &stdout, stderr)
	elapsed := time.Since(start)
	var all strings.Builder
	for _, l := range stderr.lines {
		all.WriteString(l.text)
	}
	require.Equal(t, exitHarness, code, all.String())
	assert.Contains(t, all.String(), "charge failed its first 3 attempts the same way (last: ")
	assert.Contains(t, all.String(), "so the other probes were not run")
	assert.Less(t, elapsed, 12*each, "untestable after a few attempts, not after every probe:\n%s", all.String())

	// Progress: from the start to the verdict, no gap over 2 seconds
	// (and a little for a loaded machine) without a line.
	var probing int
	last := start
	for _, l := range stderr.lines {
		if regexp.MustCompile(`^charger: probing: \d+ of \d+ probes done, \d+ attempts?, `).MatchString(l.text) {
			probing++
		}
		assert.LessOrEqual(t, l.at.Sub(last), 2*time.Second+700*time.Millisecond, "a gap before %q", l.text)
		last = l.at
	}
	assert.Positive(t, probing, "progress lines while probing:\n%s", all.String())
	requireNoTargetsLeft(t)
}
