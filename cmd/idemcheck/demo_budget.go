package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"syscall"
	"time"

	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/record"
	clitarget "github.com/idemcheck/idemcheck/targets/cli"
	consumertarget "github.com/idemcheck/idemcheck/targets/consumer"
	mcptarget "github.com/idemcheck/idemcheck/targets/mcp"
)

// maxJobs bounds --jobs: more targets at once than this only makes each
// slower.
const maxJobs = 64

// defaultJobs is how many reference targets the demo lets work at once at
// most: twelve per processor Go may use (GOMAXPROCS). Within that, a target
// starts only while the machine has processor time to spare
// (demoCPUBudget): most reference targets spend most of their time
// waiting (on a broker's ack deadline, a late retry's delay, a command's
// exit), so many work side by side, but never so many that they crowd
// each other out; a target that only waits gives up its place meanwhile.
func defaultJobs() int { return min(max(2, 12*runtime.GOMAXPROCS(0)), maxJobs) }

// demoCPUBudget is the share of the machine's processors the demo keeps
// busy before it starts another reference target (harness.WithCPUBudget).
const demoCPUBudget = 0.9

// demoCost ranks a reference target by how long it takes: a queue
// consumer waits out its broker's ack deadlines and redeliveries (~14 s,
// most of it waiting), a command-line tool's every call is a process, an
// MCP server's a session over a process's pipes, and a service on a
// database server of its own (a declared dependency) waits for a
// throwaway database per instance; the others answer over HTTP.
func demoCost(spec harness.Spec) int {
	switch {
	case spec.Kind == consumertarget.Kind:
		return 3
	case spec.Kind == clitarget.Kind:
		return 2
	case spec.Kind == mcptarget.Kind, len(spec.Dependencies) > 0:
		return 1
	}
	return 0
}

// nominalCosts is how long a target of each demoCost rank is taken to
// take when no earlier demo on this machine measured it: the others ~3 s
// (a late retry's wait and the probes around it), an MCP server or a
// service on a database server of its own ~4 s, a command-line tool ~6 s,
// a queue consumer ~14 s.
var nominalCosts = [...]time.Duration{3 * time.Second, 4 * time.Second, 6 * time.Second, 14 * time.Second}

// nominalCost is nominalCosts of spec's rank, the longest for a rank
// beyond them.
func nominalCost(spec harness.Spec) time.Duration {
	return nominalCosts[min(max(demoCost(spec), 0), len(nominalCosts)-1)]
}

// longestFirst returns the order in which to start specs: the longest
// first, so that the run ends soon after its longest target, not one long
// target after the others (the queue consumers, a dozen of them waiting
// ~14 s each, start at once and wait beside the others' work). How long a
// target takes is what the demos before on this machine measured (last,
// by name), else its kind's nominal time (nominalCost); targets that tie
// keep the order given. The order moves no verdict: each target's random
// choices follow from the seed and its name alone.
func longestFirst(specs []harness.Spec, last map[string]time.Duration) []int {
	cost := make([]time.Duration, len(specs))
	order := make([]int, len(specs))
	for i, s := range specs {
		order[i] = i
		cost[i] = nominalCost(s)
		if d, ok := last[s.Name]; ok && d > 0 {
			cost[i] = d
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(cost[b], cost[a]) })
	return order
}

// durationsFile is the file, in the directory of the demo's reference
// programs, that keeps how long each target took in the demos run with
// them: the order the next demo starts them in (longestFirst).
const durationsFile = "durations.json"

// maxDurationsFile bounds what loadDurations reads: the file of a few
// hundred targets is a few kilobytes.
const maxDurationsFile = 1 << 20

// loadDurations reads the durations the demos before kept in dir: none
// when dir is empty, or the file is missing, not a regular file, longer
// than maxDurationsFile or not what saveDurations writes. Figures that
// are not between 0 and an hour are dropped.
func loadDurations(dir string) map[string]time.Duration {
	if dir == "" {
		return nil
	}
	// Opened without waiting: an open of a named pipe for reading would
	// wait for a writer.
	f, err := os.OpenFile(filepath.Join(dir, durationsFile), os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	raw, err := io.ReadAll(io.LimitReader(f, maxDurationsFile+1))
	if err != nil || len(raw) > maxDurationsFile {
		return nil
	}
	var secs map[string]float64
	if json.Unmarshal(raw, &secs) != nil {
		return nil
	}
	out := make(map[string]time.Duration, len(secs))
	for name, s := range secs {
		if s > 0 && s < 3600 {
			out[name] = time.Duration(s * float64(time.Second))
		}
	}
	return out
}

// saveDurations keeps in dir how long each target of res took, averaged
// with what the demos before measured (last), so that one run slowed by
// other work on the machine moves the order only half way, and the
// figures of last for the targets res did not measure (one that failed,
// or was not run for want of its database server). It writes a new file
// and renames it over the old one, so that a demo reading it never sees
// half of it.
func saveDurations(dir string, res *record.Result, last map[string]time.Duration) error {
	if dir == "" {
		return nil
	}
	durations := maps.Clone(last)
	if durations == nil {
		durations = map[string]time.Duration{}
	}
	for _, t := range res.Targets {
		if t.Duration <= 0 || t.Error != "" {
			continue
		}
		d := t.Duration
		if old, ok := last[t.Name]; ok {
			d = (d + old) / 2
		}
		durations[t.Name] = d
	}
	secs := make(map[string]float64, len(durations))
	for name, d := range durations {
		secs[name] = math.Round(d.Seconds()*1000) / 1000
	}
	raw, err := json.MarshalIndent(secs, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, durationsFile+".*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(raw)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(dir, durationsFile))
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// verifyInOrder runs specs started in order (a permutation of their
// indices) and returns the result with the targets in the order of specs.
func verifyInOrder(run func([]harness.Spec) (*record.Result, error), specs []harness.Spec, order []int) (*record.Result, error) {
	started := make([]harness.Spec, len(specs))
	for k, i := range order {
		started[k] = specs[i]
	}
	res, err := run(started)
	if res != nil && len(res.Targets) == len(specs) {
		targets := make([]record.TargetResult, len(specs))
		for k, i := range order {
			targets[i] = res.Targets[k]
		}
		res.Targets = targets
	}
	return res, err
}

// slowestNote says which target took longest, and how long the whole run
// took: the run cannot be shorter than its slowest target. budgeted says
// that jobs was an upper bound within the processors' time, not a number.
func slowestNote(w io.Writer, res *record.Result, jobs int, budgeted bool) {
	var slowest *record.TargetResult
	for i := range res.Targets {
		if t := &res.Targets[i]; slowest == nil || t.Duration > slowest.Duration {
			slowest = t
		}
	}
	if slowest == nil {
		return
	}
	at := fmt.Sprintf("%d at a time", jobs)
	if budgeted {
		at = fmt.Sprintf("up to %d at a time as the processors had time for", jobs)
	}
	fmt.Fprintf(w, "idemcheck demo: %d targets in %s, %s (--jobs); the slowest, %s, took %s\n",
		len(res.Targets), res.Duration.Round(100*time.Millisecond), at, slowest.Name, slowest.Duration.Round(100*time.Millisecond))
}
