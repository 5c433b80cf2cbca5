package consumer_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/brokers"
	"github.com/idemcheck/idemcheck/brokers/nats"
	"github.com/idemcheck/idemcheck/config"
	"github.com/idemcheck/idemcheck/config/section"
	"github.com/idemcheck/idemcheck/deps"
	"github.com/idemcheck/idemcheck/deps/launch"
	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/fakes/email"
	"github.com/idemcheck/idemcheck/fakes/payments"
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

// stubProxy is a dependency's proxy that only has an address.
type stubProxy struct{ deps.Proxy }

func (stubProxy) Addr() string { return "127.0.0.1:1" }

// TestStartPlaceholdersAreWhatTheConsumerIsGiven: a consumer's start
// (command, env and dir) is checked against the placeholders the consumer
// is really given when it starts (consumer.Vars, with a broker, the fakes
// and a dependency): each of them is accepted, the list of those allowed
// that an unknown one is refused with is exactly them, and {{port}},
// which a consumer is not given, is refused in each place at its line,
// not left to fail the run.
func TestStartPlaceholdersAreWhatTheConsumerIsGiven(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := nats.Start(ctx, brokers.Options{})
	require.NoError(t, err)
	defer b.Close()
	pay, err := payments.New(payments.Options{})
	require.NoError(t, err)
	defer pay.Close()
	mail, err := email.New(email.Options{})
	require.NoError(t, err)
	defer mail.Close()
	env := &harness.Env{
		Fakes:    map[string]fakes.Fake{"payments": pay, "email": mail},
		StateDir: t.TempDir(),
		Deps:     map[string]*launch.Dependency{"db": {Name: "db", Protocol: "postgres", URL: "postgres://127.0.0.1:1/db", DirectURL: "postgres://127.0.0.1:2/db", Proxy: stubProxy{}}},
	}
	given := section.SortedKeys(consumer.Vars(env, b, 0))
	require.NotContains(t, given, "port")
	require.Subset(t, given, []string{"broker.url", "broker.kind", "broker.topic", "broker.stream", "broker.group", "broker.ack_wait", "replica", "deps.db.addr"})

	file := func(command, env, dir string) string {
		return `version: 1
fakes: {payments: {}, email: {}}
targets:
  - name: c
    kind: consumer
    dependencies: {db: {protocol: postgres}}
    start:
      command: [./consumer, ` + command + `]
      env: {` + env + `}
      dir: "` + dir + `"
    events: [{name: e, payload: "{{marker}}"}]
`
	}
	var args, vars []string
	for i, name := range given {
		args = append(args, strconv.Quote("--"+name+"={{"+name+"}}"))
		vars = append(vars, fmt.Sprintf("V%d: %q", i, "{{"+name+"}}"))
	}
	_, err = config.Parse("idemcheck.yaml", []byte(file(strings.Join(args, ", "), strings.Join(vars, ", "), "{{state_dir}}/{{broker.group}}-{{replica}}")))
	assert.NoError(t, err, "every placeholder a consumer is given may be used on its start")

	_, err = config.Parse("idemcheck.yaml", []byte(file(`"{{broker.adress}}"`, "", "")))
	var errs config.Errors
	require.ErrorAs(t, err, &errs)
	require.Len(t, errs, 1)
	assert.Equal(t, "targets[0].start.command[1]", errs[0].Path)
	allowed, ok := strings.CutPrefix(errs[0].Msg, "unknown placeholder {{broker.adress}} (allowed here: ")
	require.True(t, ok, errs[0].Msg)
	list := strings.Split(strings.TrimSuffix(allowed, ")"), ", ")
	slices.Sort(list)
	assert.Equal(t, given, list, "the placeholders allowed are those the consumer is given")

	_, err = config.Parse("idemcheck.yaml", []byte(file(`"--listen=:{{port}}"`, `PORT: "{{port}}"`, "/srv/{{port}}")))
	errs = nil
	require.ErrorAs(t, err, &errs)
	var got []string
	for _, e := range errs {
		got = append(got, e.Error())
	}
	noPort := "a consumer listens on no port: {{port}} has no meaning here; pass {{broker.url}}"
	assert.Equal(t, []string{
		"idemcheck.yaml:8:29: targets[0].start.command[1]: " + noPort,
		"idemcheck.yaml:9:19: targets[0].start.env.PORT: " + noPort,
		"idemcheck.yaml:10:12: targets[0].start.dir: " + noPort,
	}, got)
}
