package examples

import (
	"time"

	"github.com/idemcheck/idemcheck/deps/launch"
	"github.com/idemcheck/idemcheck/examples/reference"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/observe"
	"github.com/idemcheck/idemcheck/targets/consumer"
	_ "github.com/idemcheck/idemcheck/targets/consumer/brokerset" // the brokers consumer targets start
)

// ConsumerName is the name of the reference queue consumer under
// Subcommand: idemcheck __example consumer --profile NAME --broker B ….
const ConsumerName = reference.Consumer

// ConsumerDemoBrokers are the brokers the demo runs the reference
// consumers on.
var ConsumerDemoBrokers = []string{"nats", "kafka"}

// ConsumerProfiles are the reference consumer's profiles with the flaw
// each plants ("" for the correct one) and the score it is built for.
var ConsumerProfiles = []struct {
	Name, Flaw string
	Built      int
}{
	{"correct", "", 3},
	{"memory", "de-duplicates in process memory: duplicates after a restart", 0},
	{"mark-first", "marks the event processed before its effect: events lost when the effect fails or the consumer crashes", 0},
	{"check-then-insert", "looks the event up, acts, then inserts: duplicates under concurrent redelivery", 0},
	{"ack-first", "acknowledges before the effect: events lost when the effect fails or the consumer crashes", 0},
	{"none", "no de-duplication: every redelivery acts again", 0},
}

// ConsumerDemo returns the reference consumers on each demo broker,
// started from exe; each target is named "consumer-BROKER-PROFILE". Each
// sends DemoSizing's 24 other keys before a late retry, not 80: no
// reference consumer forgets an event after some number of others, and
// every one of those keys is an event the consumer must settle, one
// settling wait (150 ms) for every eight.
func ConsumerDemo(exe string) []DemoTarget {
	var out []DemoTarget
	for _, b := range ConsumerDemoBrokers {
		for _, p := range ConsumerProfiles {
			spec := ConsumerSpec(exe, b, p.Name)
			spec.Options = append(spec.Options, harness.WithLateRetry(DemoLateKeys, 0))
			out = append(out, DemoTarget{Spec: spec, Built: p.Built, Flaw: p.Flaw})
		}
	}
	return out
}

// ConsumerConfig is the consumer adapter configuration of the reference
// consumer on broker: charge events whose description carries the marker.
func ConsumerConfig(name, broker string) consumer.Config {
	return consumer.Config{
		Name: name, Broker: broker, AckWait: consumerAckWait,
		ReadyOutput: "consuming ",
		Events: []consumer.Event{{
			Name:    "charge",
			Payload: `{"amount":{{input.amount}},"currency":"usd","customer":"{{input.customer}}","description":"order {{marker}}"}`,
			Inputs: map[string]harness.Input{
				"customer": {Kind: "string", Prefix: "cus_", Length: 8},
				"amount":   {Kind: "int", Min: 100, Max: 99999},
			},
		}},
	}
}

// consumerAckWait is the demo brokers' redelivery deadline: short, so
// that a redelivery comes quickly.
const consumerAckWait = 500 * time.Millisecond

// ConsumerSpec is the harness spec of the reference consumer with profile
// on broker, started from exe, with the extra flags after its own.
func ConsumerSpec(exe, broker, profile string, extra ...string) harness.Spec {
	launch := &consumer.Launch{
		Command: []string{exe, Subcommand, ConsumerName, "--profile", profile, "--broker", broker,
			"--url", "{{broker.url}}", "--topic", "{{broker.topic}}", "--stream", "{{broker.stream}}",
			"--group", "{{broker.group}}", "--ack-wait", "{{broker.ack_wait}}",
			"--payments", "{{fakes.payments.url}}", "--state", "{{state_dir}}", "--name", "member-{{replica}}"},
	}
	launch.Command = append(launch.Command, extra...)
	return consumer.Spec(ConsumerConfig("consumer-"+broker+"-"+profile, broker), launch, PaymentsFake)
}

// ConsumerLedgerSpec is the harness spec of the reference consumer with a
// ledger profile ("ledger", "ledger-plain", "ledger-check-first",
// "ledger-ack-first") on broker, started from exe, its configuration
// changed by adjust:
// it books each event as a row of a throwaway PostgreSQL database declared
// as its dependency (the consumer is handed the proxy's URL,
// {{deps.db.url}}, so that the dependency faults act on its connection),
// and the rows are counted in the database itself ({{deps.db.direct_url}}):
// no fake takes its calls.
func ConsumerLedgerSpec(exe, broker, profile string, adjust ...func(*consumer.Config)) harness.Spec {
	l := &consumer.Launch{
		Command: []string{exe, Subcommand, ConsumerName, "--profile", profile, "--broker", broker,
			"--url", "{{broker.url}}", "--topic", "{{broker.topic}}", "--stream", "{{broker.stream}}",
			"--group", "{{broker.group}}", "--ack-wait", "{{broker.ack_wait}}",
			"--db", "{{deps.db.url}}", "--name", "member-{{replica}}"},
	}
	cfg := ConsumerConfig("consumer-"+broker+"-"+profile, broker)
	for _, a := range adjust {
		a(&cfg)
	}
	spec := consumer.Spec(cfg, l)
	spec.Dependencies = []harness.Dependency{{Name: "db", Protocol: launch.Postgres}}
	spec.Observers = []harness.ObserverStarter{observe.SQLStarter(observe.SQL{Name: "ledger-db", Kind: "ledger-row",
		DSN: "{{deps.db.direct_url}}", Query: `SELECT id, event_id FROM ledger WHERE description LIKE '%' || {{marker}} || '%'`})}
	return spec
}
