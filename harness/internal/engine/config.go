package engine

import (
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
}
