package harness

import (
	"time"

	"github.com/idemcheck/idemcheck/scenarios"
)

// Defaults of the late retries of retry.late: enough other keys to
// overflow a store bounded to 64 keys, and a wait longer than a TTL of 2
// seconds, both well within a run's budget.
const (
	DefaultLateKeys  = 80
	DefaultLateDelay = 2500 * time.Millisecond
)

// LateOptions tune retry.late's probe (embedded in Options).
type LateOptions struct {
	// LateKeys is how many intents with fresh keys are sent between an
	// intent and its late retry; 0 means DefaultLateKeys.
	LateKeys int
	// LateDelay is how long after the intent succeeded its late retry is
	// sent, at the least (the other keys' time counts); 0 means
	// DefaultLateDelay, a negative one no wait.
	LateDelay time.Duration
	// TrialWait, when above 0, lets generated trials pause for up to that
	// long between an intent and its retry (the late retries of trials
	// always may send up to LateKeys other keys in between); 0 makes
	// trials that never wait, which keeps them fast.
	TrialWait time.Duration
}

// WithTrialWaits lets generated trials pause for up to d between steps
// (see LateOptions.TrialWait).
func WithTrialWaits(d time.Duration) Option {
	return func(o *Options) { o.TrialWait = d }
}

// lateSpace lets trials over sp send up to LateKeys other keys in one
// step and wait for up to TrialWait.
func (l LateOptions) lateSpace(sp scenarios.Space) scenarios.Space {
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

// fill sets the defaults.
func (l *LateOptions) fill() {
	if l.LateKeys <= 0 {
		l.LateKeys = DefaultLateKeys
	}
	if l.LateDelay == 0 {
		l.LateDelay = DefaultLateDelay
	}
}

// lateWait is the wait before a late retry: none when negative.
func (l LateOptions) lateWait() time.Duration { return max(l.LateDelay, 0) }
