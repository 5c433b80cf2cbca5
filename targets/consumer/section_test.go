package consumer_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/config"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/targets/consumer"
)

const validConsumer = `version: 1
fakes: {payments: {}}
targets:
  - name: charges
    kind: consumer
    broker: {kind: kafka, topic: orders, ack_wait: 500ms}
    start:
      command: [./consumer, --url, "{{broker.url}}", --topic, "{{broker.topic}}", --payments, "{{fakes.payments.url}}"]
      replicas: 2
      ready_output: consuming
    events:
      - name: charge.requested
        payload: '{"amount":{{input.amount}},"description":"order {{marker}}"}'
        inputs: {amount: {int: [100, 999]}}
`

func TestSectionParses(t *testing.T) {
	f, err := config.Parse("idemcheck.yaml", []byte(validConsumer))
	require.NoError(t, err)
	specs, _, err := f.Specs()
	require.NoError(t, err)
	require.Len(t, specs, 1)
	assert.Equal(t, "consumer", specs[0].Kind)
}

// Each mistake is refused with file:line:column, the field and what to
// write instead.
func TestSectionRefuses(t *testing.T) {
	for _, tc := range []struct{ why, yaml, want string }{
		{"an unknown broker", `version: 1
targets:
  - name: c
    kind: consumer
    broker: {kind: sqs}
    start: {command: [./c]}
    events: [{name: e, payload: "{{marker}}"}]
`, `idemcheck.yaml:5:20: targets[0].broker.kind: unknown broker "sqs"`},
		{"no start", `version: 1
targets:
  - name: c
    kind: consumer
    events: [{name: e, payload: "{{marker}}"}]
`, `targets[0].start`},
		{"a payload without the marker", `version: 1
targets:
  - name: c
    kind: consumer
    start: {command: [./c, "{{broker.url}}"]}
    events: [{name: e, payload: "{}"}]
`, `does not use {{marker}}`},
		{"an unknown placeholder on the command", `version: 1
targets:
  - name: c
    kind: consumer
    start: {command: [./c, "{{broker.address}}"]}
    events: [{name: e, payload: "{{marker}}"}]
`, `idemcheck.yaml:5:28: targets[0].start.command[1]: unknown placeholder {{broker.address}}`},
		{"too many replicas", `version: 1
targets:
  - name: c
    kind: consumer
    start: {command: [./c], replicas: 99}
    events: [{name: e, payload: "{{marker}}"}]
`, `targets[0].start.replicas`},
	} {
		t.Run(tc.why, func(t *testing.T) {
			_, err := config.Parse("idemcheck.yaml", []byte(tc.yaml))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// withFaults is a consumer that declares a database, in a file whose
// faults block is block ("" for none).
func withFaults(block string) string {
	return `version: 1
` + block + `targets:
  - name: c
    kind: consumer
    broker: {kind: nats}
    dependencies: {db: {protocol: postgres}}
    start: {command: [./c, "{{deps.db.url}}"]}
    events: [{name: e, payload: "{{marker}}"}]
`
}

// A consumer is tried with its own defaults, its database's faults among
// them, unless the file names its faults: then with those, the broker's
// by their names, and with none for an empty list.
func TestAFilesFaultsReachTheConsumer(t *testing.T) {
	faultsOf := func(t *testing.T, src string) []string {
		t.Helper()
		f, err := config.Parse("idemcheck.yaml", []byte(src))
		require.NoError(t, err)
		specs, opts, err := f.Specs()
		require.NoError(t, err)
		return harness.TrialLimits(specs[0], opts...).Faults
	}
	def := faultsOf(t, withFaults(""))
	for _, n := range []string{consumer.NameLostAck, faults.NameDepError, faults.NameDepResetAfterCommit, faults.NameCrashAfterCommit, faults.NameCrashAfterEffect} {
		assert.Contains(t, def, n)
	}
	assert.NotContains(t, def, faults.NameLostResponse, "a client's fault is not a consumer's default")

	assert.Equal(t, []string{consumer.NameLostAck, faults.NameDepError},
		faultsOf(t, withFaults("faults: [broker-lost-ack, dep-error]\n")))
	assert.Empty(t, faultsOf(t, withFaults("faults: []\n")))
}
