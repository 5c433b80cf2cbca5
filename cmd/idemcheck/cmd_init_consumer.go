package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/idemcheck/idemcheck/config"
	"github.com/idemcheck/idemcheck/internal/lazyregexp"
	"github.com/idemcheck/idemcheck/reports"
	"github.com/idemcheck/idemcheck/targets/consumer"
	_ "github.com/idemcheck/idemcheck/targets/consumer/brokerset" // the brokers idemcheck run starts for consumer targets
)

// topicName is what a topic given to init --consumer may be: the
// characters every broker accepts in a topic, stream or queue name.
var topicName = lazyregexp.New(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// initConsumer writes a starter configuration for a queue consumer that
// reads topic on broker, started by command (if given): what only the user
// knows (the event's payload and where the marker goes, the fakes it
// calls) is left as TODOs that `idemcheck run` reports with their line.
func initConsumer(name, broker, topic, out string, command []string, stdout, stderr io.Writer) error {
	if !slices.Contains(consumer.Brokers, broker) {
		return usageErr("init: --broker %q: expected one of %s", broker, strings.Join(consumer.Brokers, ", "))
	}
	if !topicName.MatchString(topic) {
		return usageErr("init: --topic %q: expected letters, digits, '.', '_' or '-', at most 128", topic)
	}
	if name == "" {
		name = "consumer"
		if len(command) > 0 {
			name = config.CommandName(command)
		}
	}
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	p("# written by `idemcheck init --consumer`. Fill in every TODO, then run: idemcheck run -c FILE")
	p("# idemcheck starts the broker and your consumer, publishes each event,")
	p("# and makes the broker deliver it again (lost and late acks, crashes")
	p("# before the ack, duplicate publishes): each event must have one effect.")
	p("version: 1")
	p("fakes:")
	p("  payments: {}   # the fakes your consumer calls downstream: payments, email, webhooks")
	p("targets:")
	p("  - name: %s", strconv.Quote(name))
	p("    kind: consumer")
	p("    broker: {kind: %s, topic: %s}", broker, topic)
	p("    start:")
	if len(command) > 0 {
		p("      command: %s   # TODO: or pass it the values below as flags", quotedFlow(command))
	} else {
		p("      command: null   # TODO: your consumer's program and arguments")
	}
	p("      # point it at the broker and the fakes, e.g. as flags or variables:")
	p("      env:")
	p(`        BROKER_URL: "{{broker.url}}"`)
	p(`        BROKER_TOPIC: "{{broker.topic}}"`)
	p(`        BROKER_GROUP: "{{broker.group}}"`)
	if broker == "nats" {
		p(`        BROKER_STREAM: "{{broker.stream}}"   # the JetStream stream holding the topic`)
	}
	p(`        BROKER_ACK_WAIT: "{{broker.ack_wait}}"   # redeliveries come after it`)
	p(`        PAYMENTS_URL: "{{fakes.payments.url}}"`)
	p("      # ready_output: consuming   # a line it prints once subscribed, if any")
	p("    events:")
	p("      - name: TODO   # the message type, sent in the Event-Type header")
	p("        # the event id (Event-Id header) is the key: de-duplicate by it, and pass")
	p("        # it downstream as the idempotency key")
	p("        payload: null   # TODO: the message body, with {{marker}} where the consumer passes it downstream (a charge's description)")
	p("        # inputs: {amount: {int: [100, 9999]}}   # values for {{input.NAME}} in the payload")
	if err := writeStarter(out, b.String(), stdout); err != nil || out == "" {
		return err
	}
	fmt.Fprintf(stderr, "idemcheck init: wrote %s; fill in every TODO, then run: idemcheck run -c %s\n", out, reports.ShellQuote(out))
	return nil
}

// quotedFlow writes ss as a YAML flow sequence of double-quoted strings.
func quotedFlow(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}
