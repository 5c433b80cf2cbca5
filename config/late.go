package config

import (
	"fmt"
	"time"

	"github.com/idemcheck/idemcheck/config/schema"
	"github.com/idemcheck/idemcheck/config/section"
	"github.com/idemcheck/idemcheck/harness"
)

// Bounds of retry.late's settings: enough keys to overflow any store a
// run should call bounded, at a bounded cost, and a wait within a run.
const (
	maxLateKeys  = 10_000
	maxLateDelay = time.Minute
)

// lateKeys are the rules of retry.late_keys.
func lateKeys(f *schema.Field) {
	f.Range(0, maxLateKeys, schema.Sprintf(fmt.Sprintf("%%v is out of range: use 1 to %d other keys between an intent and its late retry (default %d)", maxLateKeys, harness.DefaultLateKeys)))
}

// checkLate checks retry.late_delay against its bound, which a schema
// cannot say of a duration written as a string.
func checkLate(c *section.Checker, r Retry) {
	if r.LateDelay.Std() > maxLateDelay {
		c.Field("late_delay").Errorf("%s is out of range: use 0s to %s (default %s)", r.LateDelay, maxLateDelay, harness.DefaultLateDelay)
	}
}

// lateOption is the harness option of retry.late_keys and
// retry.late_delay: zero keeps the harness's defaults.
func lateOption(r Retry) harness.Option {
	return harness.WithLateRetry(r.LateKeys, r.LateDelay.Std())
}
