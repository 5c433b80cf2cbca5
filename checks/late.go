package checks

import "time"

// Defaults of the late retries of retry.late: enough other keys to
// overflow a store bounded to 64 keys, and a wait longer than a TTL of 2
// seconds, both well within a run's budget.
const (
	DefaultLateKeys  = 80
	DefaultLateDelay = 2500 * time.Millisecond
)

// LateOptions tune retry.late's probe (ProbeContext.Late), and how far
// apart generated trials may put an intent and its retry.
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

// WithDefaults returns l with its zero settings given their defaults.
func (l LateOptions) WithDefaults() LateOptions {
	if l.LateKeys <= 0 {
		l.LateKeys = DefaultLateKeys
	}
	if l.LateDelay == 0 {
		l.LateDelay = DefaultLateDelay
	}
	return l
}

// lateWait is the wait before a late retry: none when negative.
func (l LateOptions) lateWait() time.Duration { return max(l.LateDelay, 0) }
