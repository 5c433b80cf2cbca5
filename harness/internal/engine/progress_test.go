package engine

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestProgressLineSaysWhatTheProbeWaitsFor: while a probe waits (a late
// retry's delay), its progress line says how long is left; once the wait
// is over, it says the probe alone.
func TestProgressLineSaysWhatTheProbeWaitsFor(t *testing.T) {
	r := &runner{pp: &probeProgress{start: time.Now()}}
	r.pp.total.Store(70)
	r.pp.done.Store(69)
	r.probing("late retry on create-order")
	r.waiting(time.Now().Add(2 * time.Second))
	assert.Regexp(t, `^shop: probing: 69 of 70 probes done, 0 attempts, 0s \(now: late retry on create-order, (2|1\.\d)s left to wait\)$`, r.pp.line("shop"))
	r.waiting(time.Time{})
	assert.Regexp(t, `\(now: late retry on create-order\)$`, r.pp.line("shop"))
	r.waiting(time.Now().Add(-time.Second))
	assert.Regexp(t, `\(now: late retry on create-order\)$`, r.pp.line("shop"), "a wait over says nothing")
}

// TestProgressLineCountsTheOtherKeys: while a late retry's other keys are
// sent (eighty calls of a slow tool take a while), the line says how
// many have been, and counts their attempts.
func TestProgressLineCountsTheOtherKeys(t *testing.T) {
	r := &runner{pp: &probeProgress{start: time.Now()}}
	r.pp.total.Store(27)
	r.pp.done.Store(26)
	for range 12 {
		r.attempted()
	}
	r.probing(fillersLabel("late retry on create-order", 12, 80))
	assert.Regexp(t, `^tool: probing: 26 of 27 probes done, 12 attempts, 0s \(now: late retry on create-order: 12 of 80 other keys sent\)$`, r.pp.line("tool"))
}
