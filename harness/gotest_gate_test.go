package harness_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/harness"
)

// gateRecorder is a harness.TB without subtests that records what Check
// logs and reports instead of failing.
type gateRecorder struct {
	logs, errors []string
}

func (r *gateRecorder) Helper()                    {}
func (r *gateRecorder) Name() string               { return "gate" }
func (r *gateRecorder) Logf(f string, args ...any) { r.logs = append(r.logs, fmt.Sprintf(f, args...)) }
func (r *gateRecorder) Errorf(f string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(f, args...))
}
func (r *gateRecorder) Fatalf(f string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(f, args...))
}
func (r *gateRecorder) Failed() bool { return len(r.errors) > 0 }

// The in-memory target is correct but takes no faults: it scores 1. The
// default gate (3) fails it, WithMinScore(1) passes it, and the score and
// its reason are logged either way.
func TestCheckGatesTheScore(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		why  string
		opts []harness.Option
		fail bool
	}{
		{"the default gate is the top level", nil, true},
		{"WithMinScore lowers it", []harness.Option{harness.WithMinScore(1)}, false},
		{"WithMinScore raises it back", []harness.Option{harness.WithMinScore(2)}, true},
		{"a partial run is not gated by default", []harness.Option{harness.WithSkip(harness.CheckKeyMismatch)}, false},
		{"unless asked", []harness.Option{harness.WithSkip(harness.CheckKeyMismatch), harness.WithMinScore(3)}, true},
	} {
		t.Run(tc.why, func(t *testing.T) {
			rec := &gateRecorder{}
			opts := append([]harness.Option{harness.WithSeed(1), harness.WithTrials(-1)}, tc.opts...)
			harness.Check(rec, lruSpec(0), opts...)
			assert.Equal(t, tc.fail, rec.Failed(), "errors: %v", rec.errors)
			assert.Contains(t, strings.Join(rec.logs, "\n"), "idemcheck: lru scored 1 of 3: score 1: level 2 needs")
			if tc.fail {
				assert.Contains(t, strings.Join(rec.errors, "\n"), "lru scored 1, below the required")
			}
		})
	}
}

// WithSkip leaves the named checks out of the run.
func TestWithSkip(t *testing.T) {
	t.Parallel()
	ran := func(opts ...harness.Option) bool {
		res, err := harness.Verify(context.Background(), []harness.Spec{lruSpec(0)}, append(opts, harness.WithSeed(1))...)
		require.NoError(t, err)
		for _, c := range res.Targets[0].Checks {
			if c.ID == harness.CheckKeyMismatch {
				return c.Status != harness.StatusSkip
			}
		}
		return false
	}
	assert.True(t, ran(), "key.mismatch runs by default")
	assert.False(t, ran(harness.WithSkip(harness.CheckKeyMismatch)))
}
