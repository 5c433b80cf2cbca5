package main

import (
	"fmt"
	"io"
	"runtime"
	"slices"
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
// consumer waits out its broker's ack deadlines and redeliveries (~15 s,
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

// longestFirst returns the order in which to start specs: the costliest
// kinds first (demoCost), each kind in the order given, so that the run
// ends soon after its longest target, not one long target after the
// others: the queue consumers, a dozen of them waiting ~15 s each, start
// at once and wait beside the others' work.
func longestFirst(specs []harness.Spec) []int {
	order := make([]int, len(specs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return demoCost(specs[b]) - demoCost(specs[a]) })
	return order
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
