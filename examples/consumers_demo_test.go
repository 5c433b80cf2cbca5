package examples_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/examples"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/internal/refexe"
)

// TestConsumerTargets runs every reference consumer of the demo, on NATS
// JetStream and on Kafka, as a real process through the harness, and
// asserts the score it is built for: the correct one has no finding, and
// each flawed one is caught by a check its flaw breaks.
func TestConsumerTargets(t *testing.T) {
	t.Parallel()
	exe := refexe.Path(t)
	catches := map[string][]string{
		"correct":           nil,
		"memory":            {"crash.recovery"},
		"mark-first":        {"exactly-once"},
		"check-then-insert": {"crash.recovery"},
		"ack-first":         {"exactly-once"},
		"none":              {"retry.sequential", "crash.recovery"},
	}
	demo := examples.ConsumerDemo(exe)
	require.Len(t, demo, len(examples.ConsumerProfiles)*len(examples.ConsumerDemoBrokers))
	specs := make([]harness.Spec, len(demo))
	for i, d := range demo {
		specs[i] = d.Spec
	}
	results := verifyTogether(t, specs, harness.WithSeed(1))
	for i, d := range demo {
		p := examples.ConsumerProfiles[i%len(examples.ConsumerProfiles)]
		t.Run(d.Spec.Name, func(t *testing.T) {
			tr := results[i]
			t.Logf("%s: score %d; failing %v", d.Spec.Name, tr.Score.Level, failing(tr))
			require.Empty(t, tr.Error)
			assert.Equal(t, d.Built, tr.Score.Level)
			if p.Flaw == "" {
				for _, f := range tr.Findings {
					t.Errorf("false finding: %s [%s]: %s", f.Check, f.Fault, f.Message)
				}
				return
			}
			assert.Subset(t, failing(tr), catches[p.Name])
		})
	}
}

// TestKafkaPollProcessedSideBySide: a Kafka member that processes the
// records of a poll side by side races the copies of a burst, which are
// produced in one write and fetched in one poll: check-then-insert
// charges twice and concurrent.duplicates reports it; the correct
// consumer, processing the same way, has no finding.
func TestKafkaPollProcessedSideBySide(t *testing.T) {
	t.Parallel()
	exe := refexe.Path(t)
	var specs []harness.Spec
	for _, p := range []string{"check-then-insert", "correct"} {
		spec := examples.ConsumerSpec(exe, "kafka", p, "--parallel-poll", "--workers", "8")
		spec.Options = append(spec.Options, harness.WithChecks("concurrent.duplicates", "exactly-once"), harness.WithTrials(0))
		specs = append(specs, spec)
	}
	results := verifyTogether(t, specs, harness.WithSeed(1))
	racy, correct := results[0], results[1]
	require.Empty(t, racy.Error)
	require.Empty(t, correct.Error)
	assert.Contains(t, failing(racy), "concurrent.duplicates", "the copies met in one poll")
	for _, f := range correct.Findings {
		t.Errorf("false finding: %s [%s]: %s", f.Check, f.Fault, f.Message)
	}
}
