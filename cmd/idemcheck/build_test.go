package main

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/idemcheck/idemcheck/config"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/harness"
)

// TestConfigKnowsWhatTheHarnessDoes keeps the configuration's lists of
// names in step with the code that gives them meaning.
func TestConfigKnowsWhatTheHarnessDoes(t *testing.T) {
	assert.ElementsMatch(t, faults.Builtin().Names(), config.KnownFaults, "every registered fault, and only those, can be configured")
	assert.Equal(t, harness.DefaultFaultNames, config.DefaultFaults, "a file without faults gets the harness's defaults")
	for _, c := range harness.Checks() {
		assert.Contains(t, config.KnownChecks, c.ID)
	}
	for _, id := range config.KnownChecks {
		assert.True(t, harness.KnownCheck(id), "config accepts %s, which the harness does not implement", id)
	}
}

func TestFaultSettingErrorsHaveAPosition(t *testing.T) {
	f, err := config.Parse("x.yaml", []byte(`version: 1
targets:
  - name: t
    kind: http
    url: http://127.0.0.1:9/
    operations:
      - {name: op, mutating: true, method: POST, path: "/x?m={{marker}}"}
faults:
  - {name: client-timeout, timout: 1s}
`))
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = build(f)
	assert.ErrorContains(t, err, "x.yaml:9")
	assert.ErrorContains(t, err, "timout")
}
