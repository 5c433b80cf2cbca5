package config

import (
	"time"

	"github.com/idemcheck/idemcheck/harness"
)

// Bounds of retry.late's settings: enough keys to overflow any store a
// run should call bounded, at a bounded cost, and a wait within a run.
const (
	maxLateKeys  = 10_000
	maxLateDelay = time.Minute
)

// late checks retry.late_keys and retry.late_delay.
func (v *validator) late(r Retry) {
	if r.LateKeys < 0 || r.LateKeys > maxLateKeys {
		v.errorf("retry.late_keys", "%d is out of range: use 1 to %d other keys between an intent and its late retry (default %d)", r.LateKeys, maxLateKeys, harness.DefaultLateKeys)
	}
	if r.LateDelay < 0 || r.LateDelay.Std() > maxLateDelay {
		v.errorf("retry.late_delay", "%s is out of range: use 0s to %s (default %s)", r.LateDelay, maxLateDelay, harness.DefaultLateDelay)
	}
}

// lateOption is the harness option of retry.late_keys and
// retry.late_delay: zero keeps the harness's defaults.
func lateOption(r Retry) harness.Option {
	return harness.WithLateRetry(r.LateKeys, r.LateDelay.Std())
}
