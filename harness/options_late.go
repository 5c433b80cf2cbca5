package harness

import (
	"time"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/scenarios"
)

// Defaults of the late retries of retry.late (see checks.LateOptions).
const (
	DefaultLateKeys  = checks.DefaultLateKeys
	DefaultLateDelay = checks.DefaultLateDelay
)

// WithTrialWaits lets generated trials pause for up to d between steps
// (see LateOptions.TrialWait).
func WithTrialWaits(d time.Duration) Option {
	return func(o *Options) { o.TrialWait = d }
}

// lateSpace lets trials over sp send up to LateKeys other keys in one
// step and wait for up to TrialWait.
func lateSpace(l checks.LateOptions, sp scenarios.Space) scenarios.Space {
	if sp.Fill == 0 {
		sp.Fill = l.LateKeys
	}
	if sp.Wait == 0 {
		sp.Wait = min(max(l.TrialWait, 0), scenarios.MaxWait)
	}
	return sp
}

// WithLateRetry sets how many other keys come between an intent and its
// late retry (retry.late), and how long after the intent the retry is
// sent; zero values keep the defaults, a negative delay waits not at all.
func WithLateRetry(keys int, delay time.Duration) Option {
	return func(o *Options) { o.LateKeys, o.LateDelay = keys, delay }
}
