package harness

import (
	"time"

	"github.com/idemcheck/idemcheck/checks"
)

// Defaults of the late retries of retry.late (see checks.LateOptions).
const (
	DefaultLateKeys  = checks.DefaultLateKeys
	DefaultLateDelay = checks.DefaultLateDelay
)

// WithTrialWaits lets generated trials pause for up to d between steps
// (see checks.LateOptions.TrialWait). Pauses pass on the wall clock, even
// for a target that reads Env.Now: the trials that share a target run
// side by side, and moving its clock for one trial's pause would age the
// keys and leases of the others, and of work still in flight.
func WithTrialWaits(d time.Duration) Option {
	return func(o *Options) { o.TrialWait = d }
}

// WithLateRetry sets how many other keys come between an intent and its
// late retry (retry.late), and how long after the intent the retry is
// sent; zero values keep the defaults, a negative delay waits not at all.
func WithLateRetry(keys int, delay time.Duration) Option {
	return func(o *Options) { o.LateKeys, o.LateDelay = keys, delay }
}
