package consumers

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/brokers"
)

// Brokers lists the brokers the consumer can read from.
var Brokers = func() []string {
	out := make([]string, 0, len(sources))
	for b := range sources {
		out = append(out, b)
	}
	sort.Strings(out)
	return out
}()

// Options configures a consumer.
type Options struct {
	// Profile is one of Profiles.
	Profile string
	// Broker is one of Brokers; empty means "nats".
	Broker string
	// URL is the broker's address ({{broker.url}}).
	URL string
	// Topic, Stream and Group are {{broker.topic}}, {{broker.stream}}
	// (empty means Topic) and {{broker.group}}.
	Topic, Stream, Group string
	// AckWait is {{broker.ack_wait}}: the Kafka session timeout.
	AckWait time.Duration
	// Payments is the payments service's base URL; the ledger profiles,
	// which book their events in DB, need none.
	Payments string
	// DB is the ledger profiles' PostgreSQL database (a postgres:// DSN).
	DB string
	// StateDir survives restarts; the durable profiles need it.
	StateDir string
	// Name names this member; empty means consumer-PID.
	Name string
	// Workers bounds the deliveries processed at once (NATS, RabbitMQ;
	// Kafka with ParallelPoll).
	Workers int
	// ParallelPoll makes a Kafka member process the records of each poll
	// side by side, up to Workers at once, and commit them once all are
	// done, as a consumer that fans a poll out to workers does.
	ParallelPoll bool
	// ChargeDelay is how long each charge waits before it is sent: a
	// slow consumer, whose effect comes well after whatever it did
	// before (an ack-first consumer's ack).
	ChargeDelay time.Duration
}

// Run consumes events as opts says until ctx ends. It writes
// "consuming TOPIC from BROKER as GROUP" to stdout once subscribed, and one
// line per failure to stderr.
func Run(ctx context.Context, opts Options, stdout, stderr io.Writer) error {
	if opts.Broker == "" {
		opts.Broker = "nats"
	}
	newSource, ok := sources[opts.Broker]
	if !ok {
		return usageError{fmt.Errorf("--broker %q: expected one of %s", opts.Broker, strings.Join(Brokers, ", "))}
	}
	newHandler, ok := profiles[opts.Profile]
	if !ok {
		return usageError{fmt.Errorf("--profile %q: expected one of %s", opts.Profile, strings.Join(Profiles, ", "))}
	}
	if opts.URL == "" {
		return usageError{errors.New("--url is required (or $BROKER_URL): the broker's address")}
	}
	// The ledger profiles book their events in DB and call no payments.
	ledger := strings.HasPrefix(opts.Profile, "ledger")
	if u, err := url.Parse(opts.Payments); (opts.Payments != "" || !ledger) && (err != nil || u.Scheme == "" || u.Host == "") {
		return usageError{fmt.Errorf("--payments %q: expected an absolute http URL (or $PAYMENTS_URL)", opts.Payments)}
	}
	if opts.Topic == "" || opts.Group == "" {
		return usageError{errors.New("--topic and --group must not be empty")}
	}
	if opts.Stream == "" {
		opts.Stream = opts.Topic
	}
	if opts.AckWait <= 0 || opts.AckWait > time.Hour {
		return usageError{fmt.Errorf("--ack-wait %s out of range; expected more than 0 and at most 1h", opts.AckWait)}
	}
	if opts.Workers < 1 || opts.Workers > 256 {
		return usageError{fmt.Errorf("--workers %d out of range; expected 1 to 256", opts.Workers)}
	}
	if opts.ChargeDelay < 0 || opts.ChargeDelay > time.Minute {
		return usageError{fmt.Errorf("--charge-delay %s out of range; expected 0 to 1m", opts.ChargeDelay)}
	}
	if opts.Name == "" {
		opts.Name = fmt.Sprintf("consumer-%d", os.Getpid())
	}
	pay := newPayments(opts.Payments)
	pay.delay = opts.ChargeDelay
	defer pay.close()
	h, err := newHandler(deps{pay: pay, state: opts.StateDir, db: opts.DB, log: stderr})
	if err != nil {
		return usageError{fmt.Errorf("--profile %s: %w", opts.Profile, err)}
	}
	src := newSource(sourceConfig{url: opts.URL, topic: opts.Topic, stream: opts.Stream, group: opts.Group,
		name: opts.Name, ackWait: opts.AckWait, workers: opts.Workers, parallelPoll: opts.ParallelPoll, log: stderr})
	return src.run(ctx, h, func() {
		fmt.Fprintf(stdout, "consuming %s from %s as %s (profile %s)\n", opts.Topic, opts.Broker, opts.Group, opts.Profile)
	})
}

// usageError is a bad command line or configuration: exit status 2.
type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }

// Main is the command line: it parses args, runs the consumer until ctx
// ends, and returns the exit status (0 when stopped, 1 on a failure, 2 on
// bad usage).
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("consumer", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o Options
	fs.StringVar(&o.Profile, "profile", "", "de-duplication profile: "+strings.Join(Profiles, ", "))
	fs.StringVar(&o.Broker, "broker", "nats", "broker: "+strings.Join(Brokers, ", "))
	fs.StringVar(&o.URL, "url", os.Getenv("BROKER_URL"), "broker address ({{"+brokers.PlaceholderURL+"}}; default $BROKER_URL)")
	fs.StringVar(&o.Topic, "topic", brokers.DefaultTopic, "topic ({{"+brokers.PlaceholderTopic+"}})")
	fs.StringVar(&o.Stream, "stream", "", "JetStream stream ({{"+brokers.PlaceholderStream+"}}; default the topic)")
	fs.StringVar(&o.Group, "group", brokers.DefaultGroup, "consumer group ({{"+brokers.PlaceholderGroup+"}})")
	fs.DurationVar(&o.AckWait, "ack-wait", brokers.DefaultAckWait, "ack deadline ({{"+brokers.PlaceholderAckWait+"}}): the Kafka session timeout")
	fs.StringVar(&o.Payments, "payments", os.Getenv("PAYMENTS_URL"), "payments base URL (default $PAYMENTS_URL)")
	fs.StringVar(&o.DB, "db", "", "the ledger profiles' PostgreSQL database (postgres://…)")
	fs.StringVar(&o.StateDir, "state", "", "state directory that survives restarts")
	fs.StringVar(&o.Name, "name", "", "member name (default consumer-PID)")
	fs.IntVar(&o.Workers, "workers", 4, "deliveries processed at once (NATS, RabbitMQ; Kafka with --parallel-poll)")
	fs.BoolVar(&o.ParallelPoll, "parallel-poll", false, "Kafka: process each poll's records side by side, up to --workers at once")
	fs.DurationVar(&o.ChargeDelay, "charge-delay", 0, "wait before each charge (a slow consumer)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "consumer: unexpected arguments %q\n", fs.Args())
		return 2
	}
	if o.StateDir != "" {
		if fi, err := os.Stat(o.StateDir); err != nil || !fi.IsDir() {
			fmt.Fprintf(stderr, "consumer: --state %s: expected an existing directory\n", o.StateDir)
			return 2
		}
	}
	err := Run(ctx, o, stdout, stderr)
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "consumer: %v\n", err)
		return 2
	default:
		fmt.Fprintf(stderr, "consumer: %v\n", err)
		return 1
	}
}
