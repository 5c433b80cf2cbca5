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
// (see checks.LateOptions.TrialWait). A pause passes on the target's own
// clock, moved on at once, when it reads Env.Now (as a late retry's
// wait does); on the wall clock otherwise.
func WithTrialWaits(d time.Duration) Option {
	return func(o *Options) { o.TrialWait = d }
}

// WithLateRetry sets how many other keys come between an intent and its
// late retry (retry.late), and how long after the intent the retry is
// sent; zero values keep the defaults, a negative delay waits not at all.
func WithLateRetry(keys int, delay time.Duration) Option {
	return func(o *Options) { o.LateKeys, o.LateDelay = keys, delay }
}
