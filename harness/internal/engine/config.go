package engine

import (
	"time"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/scenarios"
)

// Config is what one target's run is told: package harness's Options for
// that target, every default filled in.
type Config struct {
	// Seed drives every random choice; Nonce makes the keys and markers
	// the run's own.
	Seed, Nonce uint64
	// Checks are the ids of the checks that run.
	Checks []string
	// Faults are the faults tried, in the order given.
	Faults []faults.Fault
	// MaxAttempts bounds the retries after failures of one intent.
	MaxAttempts int
	// Backoff is the first wait before a retry that waits; StuckWait
	// bounds how long "in progress" answers are waited out.
	Backoff, StuckWait time.Duration
	// Burst is how many copies a burst sends, Bursts how many bursts per
	// mutating operation.
	Burst, Bursts int
	// Late tunes retry.late's probe and the trials' waits.
	Late checks.LateOptions
	// Trials is how many generated trials run after the probes.
	Trials int
	// FreshTrials starts a fresh instance for every generated trial.
	FreshTrials bool
	// TrialWorkers is how many generated trials run at once (at least 1).
	TrialWorkers int
	// Budget bounds the time the trials may take (0: no bound).
	Budget time.Duration
	// Replay are saved failing trials, run again first.
	Replay []scenarios.Saved
	// Shard and Shards split a run: only probe k with k % Shards ==
	// Shard-1 runs.
	Shard, Shards int
}
