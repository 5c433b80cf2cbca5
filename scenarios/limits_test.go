package scenarios_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/idemcheck/idemcheck/scenarios"
)

func TestTrialWithin(t *testing.T) {
	l := scenarios.Limits{Burst: 20, Faults: []string{"reset", "client-timeout"}}
	step := func(s scenarios.Step) scenarios.Trial { return scenarios.Trial{Steps: []scenarios.Step{s}} }
	long := scenarios.Trial{}
	for range scenarios.MaxSteps + 1 {
		long.Steps = append(long.Steps, scenarios.Step{Op: "create", Key: scenarios.Fresh})
	}
	rows := []struct {
		why   string
		trial scenarios.Trial
		want  string
	}{
		{"a burst as large as the configuration's is allowed", step(scenarios.Step{Op: "create", Key: scenarios.Fresh, Burst: 20}), ""},
		{"a configured fault is allowed", step(scenarios.Step{Op: "create", Key: scenarios.Fresh, Fault: "reset"}), ""},
		{"a burst of 5,000 is refused", step(scenarios.Step{Op: "create", Key: scenarios.Fresh, Burst: 5000}), "a burst of 5000 copies, more than the configuration's burst (20)"},
		{"an unknown fault is refused", step(scenarios.Step{Op: "create", Key: scenarios.Fresh, Fault: "meteor"}), `fault "meteor" is not one the configuration enables`},
		{"too many steps are refused", long, "more than the 64 a trial may have"},
	}
	for _, r := range rows {
		t.Run(r.why, func(t *testing.T) {
			err := r.trial.Within(l)
			if r.want == "" {
				assert.NoError(t, err)
				return
			}
			if assert.Error(t, err) {
				assert.True(t, strings.Contains(err.Error(), r.want), err.Error())
			}
		})
	}
}
