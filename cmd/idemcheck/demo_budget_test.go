package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/examples"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/record"
)

// TestDemoStartsLongestFirst: the demo starts its queue consumers, then
// its command-line tools, then its MCP servers and the services on
// database servers of their own, then the rest, each kind in the table's order, and
// reports every target where the table lists it.
func TestDemoStartsLongestFirst(t *testing.T) {
	demo := examples.Demo("idemcheck")
	withDeps, _ := examples.DependencyDemo("idemcheck") // those this machine's servers allow
	demo = append(demo, withDeps...)
	specs := make([]harness.Spec, len(demo))
	for i, d := range demo {
		specs[i] = d.Spec
	}
	order := longestFirst(specs, nil)
	require.Len(t, order, len(specs))
	seen := map[int]bool{}
	for k, i := range order {
		require.False(t, seen[i], "index %d twice", i)
		seen[i] = true
		if k > 0 {
			prev := order[k-1]
			c, p := demoCost(specs[i]), demoCost(specs[prev])
			assert.True(t, c < p || c == p && i > prev, "%s (%s) started after %s (%s)", specs[i].Name, specs[i].Kind, specs[prev].Name, specs[prev].Kind)
		}
	}
	assert.Equal(t, "consumer", specs[order[0]].Kind, "a queue consumer starts first")
	for k, i := range order {
		if len(specs[i].Dependencies) > 0 {
			for _, j := range order[:k] {
				assert.False(t, specs[j].Kind == "http" && len(specs[j].Dependencies) == 0,
					"%s, on a database server of its own, starts after %s", specs[i].Name, specs[j].Name)
			}
		}
	}

	var startedAs []string
	res, err := verifyInOrder(func(started []harness.Spec) (*record.Result, error) {
		r := &record.Result{Duration: 3 * time.Second}
		for k, s := range started {
			startedAs = append(startedAs, s.Name)
			r.Targets = append(r.Targets, record.TargetResult{Name: s.Name, Duration: time.Duration(k+1) * time.Second})
		}
		return r, nil
	}, specs, order)
	require.NoError(t, err)
	for k, i := range order {
		assert.Equal(t, specs[i].Name, startedAs[k])
	}
	for i, tr := range res.Targets {
		assert.Equal(t, specs[i].Name, tr.Name, "the report keeps the table's order")
	}
	var b bytes.Buffer
	slowestNote(&b, res, 4, false)
	last := specs[order[len(order)-1]].Name
	assert.Equal(t, fmt.Sprintf("idemcheck demo: %d targets in 3s, 4 at a time (--jobs); the slowest, %s, took %s\n", len(specs), last, time.Duration(len(specs))*time.Second), b.String())
	b.Reset()
	slowestNote(&b, res, 16, true)
	assert.Contains(t, b.String(), "up to 16 at a time as the processors had time for (--jobs)")
}

// TestDemoStartsWhatTookLongestLastTimeFirst: where an earlier demo on
// this machine measured the targets, the longest of them starts first,
// whatever its kind; a target it did not measure ranks by its kind's
// nominal time; the durations kept are averaged with the earlier ones,
// and a missing, foreign or broken file orders by kind alone.
func TestDemoStartsWhatTookLongestLastTimeFirst(t *testing.T) {
	specs := []harness.Spec{
		{Name: "quick", Kind: "http"},
		{Name: "stuck-keys", Kind: "http"},
		{Name: "consumer", Kind: "consumer"},
		{Name: "tool", Kind: "cli"},
		{Name: "new", Kind: "http"},
	}
	last := map[string]time.Duration{"quick": 2 * time.Second, "stuck-keys": 20 * time.Second, "consumer": 13 * time.Second, "tool": 5 * time.Second}
	order := longestFirst(specs, last)
	var names []string
	for _, i := range order {
		names = append(names, specs[i].Name)
	}
	assert.Equal(t, []string{"stuck-keys", "consumer", "tool", "new", "quick"}, names, "new: an HTTP target's nominal 3 s")

	dir := t.TempDir()
	assert.Empty(t, loadDurations(dir), "no file yet")
	assert.Empty(t, loadDurations(""), "no cache directory: no file")
	res := &record.Result{Targets: []record.TargetResult{
		{Name: "quick", Duration: 4 * time.Second},
		{Name: "stuck-keys", Duration: 10 * time.Second},
		{Name: "tool", Duration: time.Second, Error: "could not start"},
	}}
	require.NoError(t, saveDurations(dir, res, last))
	got := loadDurations(dir)
	assert.Equal(t, map[string]time.Duration{
		"quick": 3 * time.Second, "stuck-keys": 15 * time.Second,
		"consumer": 13 * time.Second, "tool": 5 * time.Second,
	}, got, "averaged with the last; a target that failed or was not run keeps its figure")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary file left")

	for _, raw := range []string{"{not json", `{"quick": -1, "stuck-keys": 1e9}`, `{"quick": 2}` + strings.Repeat(" ", maxDurationsFile)} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, durationsFile), []byte(raw), 0o600))
		assert.Empty(t, loadDurations(dir), "%.40s", raw)
	}
	assert.Equal(t, longestFirst(specs, nil), longestFirst(specs, loadDurations(dir)))

	// Not a regular file: a demo reads no device and waits on no pipe.
	require.NoError(t, os.Remove(filepath.Join(dir, durationsFile)))
	require.NoError(t, os.Symlink("/dev/zero", filepath.Join(dir, durationsFile)))
	assert.Empty(t, loadDurations(dir))
	require.NoError(t, os.Remove(filepath.Join(dir, durationsFile)))
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, durationsFile), 0o600))
	assert.Empty(t, loadDurations(dir))
}

// TestNominalCostCoversEveryRank: every rank demoCost gives has a nominal
// time, longer for a costlier rank, and a rank beyond them takes the
// longest.
func TestNominalCostCoversEveryRank(t *testing.T) {
	kinds := []harness.Spec{{Kind: "http"}, {Kind: "mcp"}, {Kind: "cli"}, {Kind: "consumer"}}
	for i := 1; i < len(kinds); i++ {
		assert.Greater(t, nominalCost(kinds[i]), nominalCost(kinds[i-1]), kinds[i].Kind)
	}
	assert.Equal(t, nominalCosts[len(nominalCosts)-1], nominalCost(kinds[3]))
}
