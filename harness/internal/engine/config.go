package engine

import (
	"context"
	"time"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/scenarios"
)

// Config is what one target's run is told: package harness's Options for
// that target, every default filled in. Each field is the option of the
// same name there (Late is its LateOptions), but TrialWorkers, which is
// resolved for the target (at least 1).
type Config struct {
	Seed, Nonce        uint64
	Checks             []string
	Faults             []faults.Fault
	MaxAttempts        int
	Backoff, StuckWait time.Duration
	Burst, Bursts      int
	Late               checks.LateOptions
	Trials             int
	FreshTrials        bool
	TrialWorkers       int
	Budget             time.Duration
	Replay             []scenarios.Saved
	Shard, Shards      int
	// Idle, when not nil, is the target's place among the targets that
	// work at once: the probes give it up while they only wait (a late
	// retry's delay), and take it back before going on.
	Idle Idler
}

// Idler is a target's place among the targets that work at once (see
// Config.Idle).
type Idler interface {
	// Leave gives the place up while the target only waits.
	Leave()
	// Return takes a place again (it may wait for one); it gives up
	// when ctx ends first.
	Return(ctx context.Context)
}
