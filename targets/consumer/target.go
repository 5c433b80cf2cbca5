package consumer

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/idemcheck/idemcheck/brokers"
	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/targets/process"
)

// Kind is the adapter's kind in reports.
const Kind = "consumer"

// Brokers are the brokers a consumer target can be fed through; the
// first is the default.
var Brokers = []string{"nats", "kafka", "redis", "rabbitmq"}

// Defaults.
const (
	// DefaultAckWait is the broker's redelivery deadline unless the
	// configuration sets one.
	DefaultAckWait = time.Second
	// DefaultTimeout bounds how long one attempt waits for the consumer
	// to acknowledge its event.
	DefaultTimeout = 10 * time.Second
	// MaxReplicas bounds the members of a consumer group idemcheck starts.
	MaxReplicas = 8
)

// HeaderEventType carries the event's name (its operation) on every
// message, beside brokers.HeaderEventID and brokers.HeaderEntity.
const HeaderEventType = "Event-Type"

// HeaderEventSeq carries the event's sequence number within its entity
// (brokers.HeaderEntity), as its producer numbered it: 1 for the first
// event of an entity, then one more for each event published for it. A
// publish of the same event again keeps its number. A consumer that
// applies an entity's events in order can tell an event that came late
// from a duplicate only by its id (see NameReorder).
const HeaderEventSeq = "Event-Seq"

// Event is one kind of event published to the consumer: an operation.
type Event struct {
	// Name is the operation's name and the message type, sent in
	// HeaderEventType ("charge.requested").
	Name string
	// Safe marks an event that must cause no side effect.
	Safe bool
	// Payload is the message body; it may use {{key}} (the event id),
	// {{marker}} and {{input.NAME}}.
	Payload string
	// Entity is the entity the event is about (a Kafka record key), a
	// template like Payload; empty means the event id.
	Entity string
	// Headers are sent with every message (Redis: extra stream fields);
	// values are templates like Payload.
	Headers map[string]string
	// Inputs are the values generated for {{input.NAME}}.
	Inputs map[string]harness.Input
}

// Config describes a consumer target.
type Config struct {
	Name string
	// Broker is one of Brokers; empty means nats (embedded JetStream).
	Broker string
	// Topic and Group name the topic (stream, queue) and the consumer
	// group; empty means brokers.DefaultTopic and DefaultGroup.
	Topic, Group string
	// AckWait is the broker's redelivery deadline; zero means
	// DefaultAckWait.
	AckWait time.Duration
	// Partitions is the number of Kafka partitions (default 1).
	Partitions int
	// IDHeader, if set, also carries the event id in this header (or
	// Redis field), beside brokers.HeaderEventID.
	IDHeader string
	// Timeout bounds how long an attempt waits for the consumer's ack;
	// zero means DefaultTimeout.
	Timeout time.Duration
	// ReadyOutput, if set, is a text the consumer prints (stdout or
	// stderr) once it is subscribed: each start waits for it.
	ReadyOutput string
	Events      []Event
}

// Launch is how idemcheck starts the consumer (see process.Launch):
// Command, Env and Dir may use {{broker.url}}, {{broker.kind}},
// {{broker.topic}}, {{broker.stream}}, {{broker.group}},
// {{broker.ack_wait}}, {{state_dir}}, {{fakes.NAME.url}} and
// {{replica}}; Replicas members join the group. ReadyPath is not used
// (see Config.ReadyOutput).
type Launch = process.Launch

func (cfg *Config) validate() error {
	if cfg.Broker == "" {
		cfg.Broker = Brokers[0]
	}
	if !slices.Contains(Brokers, cfg.Broker) {
		return fmt.Errorf("consumer target %s: broker %q: expected one of %s", cfg.Name, cfg.Broker, strings.Join(Brokers, ", "))
	}
	if len(cfg.Events) == 0 {
		return fmt.Errorf("consumer target %s: no events", cfg.Name)
	}
	seen := map[string]bool{}
	for _, ev := range cfg.Events {
		switch {
		case ev.Name == "":
			return fmt.Errorf("consumer target %s: an event has no name", cfg.Name)
		case seen[ev.Name]:
			return fmt.Errorf("consumer target %s: event %s is listed twice", cfg.Name, ev.Name)
		}
		seen[ev.Name] = true
	}
	if cfg.AckWait <= 0 {
		cfg.AckWait = DefaultAckWait
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	return nil
}

// Spec returns a harness.Spec that starts the fakes, then the broker, then
// the consumer's processes (launch; it is required: idemcheck must be
// able to crash and restart the consumer, and to point it at its broker).
func Spec(cfg Config, launch *Launch, fks ...harness.FakeStarter) harness.Spec {
	verr := cfg.validate()
	if verr == nil && (launch == nil || len(launch.Command) == 0) {
		verr = fmt.Errorf("consumer target %s: no command: idemcheck starts the consumer itself", cfg.Name)
	}
	return harness.Spec{
		Name: cfg.Name, Kind: Kind, Fakes: fks,
		Start: func(ctx context.Context, env *harness.Env) (harness.Target, error) {
			if verr != nil {
				return nil, verr
			}
			return start(ctx, cfg, *launch, env)
		},
		// A burst is a publish per copy, each waited for until acknowledged:
		// a few copies show concurrent redeliveries as well as many (a
		// run's own bursts: or retry.burst is kept). A stalled database
		// holds a delivery's statements past the ack deadline, so that
		// the broker's redelivery meets them held.
		Options: []harness.Option{harness.WithKindFaults(Faults()...), harness.WithKindBursts(DefaultBurst, DefaultBursts),
			harness.WithMinHold(StallHold(cfg.AckWait))},
		Isolated: true,
	}
}

// A consumer's bursts where the run sets none: DefaultBursts bursts of
// DefaultBurst copies per operation.
const (
	DefaultBurst  = 4
	DefaultBursts = 2
)

// StallHold is the least a fault that holds a consumer's work (dep-stall)
// holds each statement when the broker redelivers after ackWait (zero:
// DefaultAckWait): twice the ack deadline. The redelivery comes one ack
// deadline after the delivery; a consumer that checks for the event id
// in one statement and writes in the next then meets the first
// delivery's write still held for as long again, not a moment before or
// after it is let go.
func StallHold(ackWait time.Duration) time.Duration {
	if ackWait <= 0 {
		ackWait = DefaultAckWait
	}
	return 2 * ackWait
}

// Faults are the faults a consumer target is tried with by default: the
// crashes before and after the effect (a crash after the effect is one
// before the ack), the downstream failures, and every redelivery fault;
// the dependency faults too when it declares a dependency. A run, or a
// configuration file, that names its faults tries those, the redelivery
// faults by their names (RegisterFaults).
func Faults() []faults.Fault {
	reg := faults.Builtin()
	var out []faults.Fault
	for _, n := range []string{faults.NameDownstreamFailBefore, faults.NameDownstreamFailAfter, faults.NameCrashBeforeEffect, faults.NameCrashAfterEffect} {
		f, _ := reg.New(n, nil)
		out = append(out, f)
	}
	for _, f := range RedeliveryFaults() {
		if f.name == NameBatchCrash {
			out = append(out, BatchFault{f})
			continue
		}
		out = append(out, f)
	}
	return out
}

// BrokerStarter starts a broker of one kind.
type BrokerStarter func(ctx context.Context, opts brokers.Options) (brokers.Broker, error)

var (
	startersMu sync.Mutex
	starters   = map[string]BrokerStarter{}
)

// RegisterBroker makes the broker kind name (one of Brokers) available to
// consumer targets; package brokerset registers every broker.
func RegisterBroker(name string, start BrokerStarter) {
	startersMu.Lock()
	defer startersMu.Unlock()
	starters[name] = start
}

// startBroker starts the configured broker.
func startBroker(ctx context.Context, cfg Config) (brokers.Broker, error) {
	startersMu.Lock()
	start := starters[cfg.Broker]
	startersMu.Unlock()
	if start == nil {
		return nil, fmt.Errorf("broker %s is not linked into this program: import _ \"github.com/idemcheck/idemcheck/targets/consumer/brokerset\"", cfg.Broker)
	}
	return start(ctx, brokers.Options{Topic: cfg.Topic, Group: cfg.Group, AckWait: cfg.AckWait, Partitions: cfg.Partitions})
}

// Target is a queue consumer fed through a broker idemcheck started. It
// implements harness.Target, harness.Crasher, harness.Burster and
// harness.FaultExplainer.
type Target struct {
	cfg    Config
	broker brokers.Broker
	env    *harness.Env
	events map[string]Event
	info   harness.TargetInfo
	procs  []*member
	log    *brokers.Log
	launch Launch

	mu      sync.Mutex
	state   map[string]*eventState
	seqs    map[string]int64 // the last sequence number of each entity
	dead    chan struct{}    // closed by Kill, replaced by Restart
	silent  int              // attempts in a row that timed out with nothing acknowledged ever
	anyAck  bool
	closed  bool
	exitErr string
	exited  chan struct{} // closed once a member exited unasked
}

var (
	_ harness.Target         = (*Target)(nil)
	_ harness.Crasher        = (*Target)(nil)
	_ harness.Burster        = (*Target)(nil)
	_ harness.FaultExplainer = (*Target)(nil)
)

// eventState is what the adapter knows of one event id.
type eventState struct {
	published bool
	// mark is the broker log's last sequence number before the attempt
	// that left the event pending: a later attempt judges from there.
	mark int64
	// pending: an attempt ended before the consumer acknowledged the
	// event (a crash, a timeout): the next attempt waits for the broker's
	// redelivery instead of publishing again.
	pending bool
	// seq is the event's number within its entity (HeaderEventSeq), 0
	// until it is first rendered.
	seq int64
}

func start(ctx context.Context, cfg Config, launch Launch, env *harness.Env) (harness.Target, error) {
	b, err := startBroker(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("consumer target %s: starting %s: %w", cfg.Name, cfg.Broker, err)
	}
	t := &Target{cfg: cfg, broker: b, env: env, events: map[string]Event{}, log: b.Log(),
		state: map[string]*eventState{}, seqs: map[string]int64{}, dead: make(chan struct{}), exited: make(chan struct{}), launch: launch}
	t.info = harness.TargetInfo{Name: cfg.Name, Kind: Kind, Capabilities: &harness.Capabilities{Redelivery: true, EventKeys: true}}
	for _, ev := range cfg.Events {
		t.events[ev.Name] = ev
		t.info.Operations = append(t.info.Operations, harness.Operation{Name: ev.Name, Mutating: !ev.Safe, Inputs: ev.Inputs})
	}
	n := max(1, launch.Replicas)
	for i := range n {
		m, err := startMember(ctx, cfg, launch, env, b, i, n)
		if err != nil {
			_ = t.Close()
			return nil, err
		}
		t.procs = append(t.procs, m)
		m.watch(t.memberExited)
	}
	return t, nil
}

// Info implements harness.Target.
func (t *Target) Info() harness.TargetInfo { return t.info }

// Broker is the running broker.
func (t *Target) Broker() brokers.Broker { return t.broker }

// Supports implements harness.Target: crashes before and after the effect
// (the consumer is a process idemcheck started), downstream faults, and
// the redelivery faults the broker can carry out. Faults of an HTTP
// exchange (proxy, client) have no meaning here.
func (t *Target) Supports(f faults.Fault) bool { return t.WhyUnsupported(f) == "" }

var _ harness.Disrupter = (*Target)(nil)

// DisruptedBy implements harness.Disrupter: a rebalance of the consumer
// group reads the partition again from its last committed offset, which
// delivers again every event in flight there, not only the attempt's; so
// generated trials run it alone, as they run a crash.
func (t *Target) DisruptedBy(f faults.Fault) bool {
	x, ok := f.(*Fault)
	return ok && x.name == NameRebalance
}

// WhyUnsupported implements harness.FaultExplainer.
func (t *Target) WhyUnsupported(f faults.Fault) string {
	switch x := f.(type) {
	case faults.DependencyFault:
		if f.Name() == faults.NameDepStall && !redeliversSlow(t.broker) {
			return fmt.Sprintf("it holds the consumer's statements past the ack deadline so that the broker delivers the event again meanwhile, and %s delivers an event to another member only once the first has given it up (a claim, a rebalance): nothing would meet the held statements; see broker-rebalance and crash-after-commit", t.broker.Name())
		}
		return ""
	case *Fault:
		if ok, why := support(t.broker, x); !ok {
			return why
		}
		if (x.name == NameSlowConsumer || x.name == NameRebalance) && len(t.env.Fakes) == 0 {
			return "it holds the consumer's downstream call in a fake past the ack deadline, and this consumer's effects are counted by observers only: no fake takes its calls (dep-stall holds its database instead, when it declares one)"
		}
		return ""
	case BatchFault:
		if ok, why := support(t.broker, x.Fault); !ok {
			return why
		}
		return ""
	case faults.CrashFault:
		if x.CrashPoint() == faults.AfterReply {
			return "a consumer does not reply to its producer: a crash after the effect is the crash before the ack"
		}
		return ""
	case faults.DownstreamFault:
		return ""
	}
	return "a consumer is reached through its broker, not by a request whose exchange could be faulted"
}

// Close stops the consumer's processes, then the broker.
func (t *Target) Close() error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil
	}
	t.closed = true
	t.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var err error
	for _, m := range t.procs {
		err = errors.Join(err, m.stop(ctx))
	}
	return errors.Join(err, t.broker.Close())
}

// Kill implements harness.Crasher: every member of the group is killed,
// before any of them acknowledges what it was processing.
func (t *Target) Kill() error {
	var err error
	for _, m := range t.procs {
		err = errors.Join(err, m.kill())
	}
	t.mu.Lock()
	select {
	case <-t.dead:
	default:
		close(t.dead)
	}
	t.mu.Unlock()
	return err
}

// Restart implements harness.Crasher: every member starts again and
// subscribes; the broker then redelivers what was not acknowledged.
func (t *Target) Restart(ctx context.Context) error {
	for _, m := range t.procs {
		if err := m.restart(ctx, t.launch.ReadyTimeout); err != nil {
			return err
		}
	}
	t.mu.Lock()
	t.dead = make(chan struct{})
	t.mu.Unlock()
	return nil
}

// Burst implements harness.Burster: n copies of the call's event, as n
// producers retrying together would publish them. The copies are stored
// in one write where the broker can (brokers.CopiesPublisher: a Kafka
// member then fetches them in one poll), else one after the other (the
// first as Call publishes an event, the others as retried publishes
// without the broker's de-duplication header, so that every broker
// stores all n); and the consumer's downstream calls
// for the event are held at the fakes until every copy has reached the
// downstream or has been given up (see gate): the copies are processed
// at the same time whenever the consumer processes deliveries
// concurrently, whatever the scheduling, so that a burst's verdict is the
// same in every run of a seed. Every copy gets the attempt's one reply.
func (t *Target) Burst(ctx context.Context, c harness.Call, n int) []harness.Reply {
	if n < 1 {
		return nil
	}
	mark := t.lastSeq()
	g := &gate{t: t, id: c.Key, mark: mark, copies: n, release: make(chan struct{})}
	for _, fk := range t.env.Fakes {
		fk.Arm(fakes.Rule{Marker: c.Marker, Times: 4 * n, Action: fakes.Pass, OnMatch: g.hold})
	}
	defer func() {
		g.open()
		for _, fk := range t.env.Fakes {
			fk.DisarmMarker(c.Marker)
		}
	}()
	rep := t.call(ctx, c, n)
	out := make([]harness.Reply, n)
	for i := range out {
		out[i] = rep
	}
	return out
}

// gate holds a burst's downstream calls until each delivery of the
// burst's event since mark is either held here or over (acked, nacked),
// and at least copies were delivered; or until the consumer's ack
// deadline passes, for a consumer that processes its deliveries one at a
// time (a Kafka partition), whose later copies wait for the first.
type gate struct {
	t       *Target
	id      string
	mark    int64
	copies  int
	mu      sync.Mutex
	held    int
	once    sync.Once
	release chan struct{}
}

// hold is the fakes' OnMatch: one downstream call of the burst.
func (g *gate) hold() {
	g.mu.Lock()
	g.held++
	g.mu.Unlock()
	deadline := time.NewTimer(g.t.cfg.AckWait)
	defer deadline.Stop()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !g.ready() {
		select {
		case <-g.release:
			return
		case <-deadline.C:
			g.open()
			return
		case <-tick.C:
		}
	}
	g.open()
}

func (g *gate) open() { g.once.Do(func() { close(g.release) }) }

// ready says whether every delivery of the event has reached the gate or
// is over.
func (g *gate) ready() bool {
	g.mu.Lock()
	held := g.held
	g.mu.Unlock()
	if held >= g.copies {
		return true
	}
	delivered, ended := 0, 0
	for _, o := range g.t.log.Observations() {
		if o.Seq <= g.mark || o.EventID != g.id {
			continue
		}
		switch o.Kind {
		case brokers.Delivered:
			delivered++
		case brokers.Acked, brokers.Nacked, brokers.AckDropped, brokers.AckHeld:
			ended++
		}
	}
	return delivered >= g.copies && ended+held >= delivered
}

// render makes the event of a call.
func (t *Target) render(c harness.Call) (brokers.Event, error) {
	ev, ok := t.events[c.Operation]
	if !ok {
		return brokers.Event{}, fmt.Errorf("unknown event %s", c.Operation)
	}
	vars := c.Vars()
	payload, err := harness.Expand(ev.Payload, vars)
	if err != nil {
		return brokers.Event{}, fmt.Errorf("event %s: payload: %w", ev.Name, err)
	}
	entity, err := harness.Expand(ev.Entity, vars)
	if err != nil {
		return brokers.Event{}, fmt.Errorf("event %s: entity: %w", ev.Name, err)
	}
	hdr := map[string]string{HeaderEventType: ev.Name}
	for _, name := range slices.Sorted(maps.Keys(ev.Headers)) {
		v, err := harness.Expand(ev.Headers[name], vars)
		if err != nil {
			return brokers.Event{}, fmt.Errorf("event %s: header %s: %w", ev.Name, name, err)
		}
		hdr[name] = v
	}
	if t.cfg.IDHeader != "" {
		hdr[t.cfg.IDHeader] = c.Key
	}
	return brokers.Event{ID: c.Key, Key: entity, Payload: []byte(payload), Headers: hdr}, nil
}

// number sets ev's HeaderEventSeq: the number it was given when first
// published, or the next of its entity.
func (t *Target) number(ev *brokers.Event, st *eventState) {
	t.mu.Lock()
	if st.seq == 0 {
		t.seqs[ev.Entity()]++
		st.seq = t.seqs[ev.Entity()]
	}
	ev.Headers[HeaderEventSeq] = strconv.FormatInt(st.seq, 10)
	t.mu.Unlock()
}

// filler returns the n-th extra event of the same operation and entity as
// ev, for the faults that need other events around ev (NameReorder,
// NameBatchCrash): its id is ev's with a suffix, and its payload is
// rendered with a marker that is no intent's (its effect belongs to no
// intent), so that it never counts as one of ev's effects.
func (t *Target) filler(c harness.Call, ev brokers.Event, n int) (brokers.Event, error) {
	fc := c
	fc.Key = fmt.Sprintf("%s.filler-%d", c.Key, n)
	// A marker of the fakes' shape, of no intent: the filler's effect is
	// recorded as marked, and is no effect of an intent.
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/filler-%d", c.Marker, n)
	fc.Marker = fmt.Sprintf("idem-%016x", h.Sum64())
	fev, err := t.render(fc)
	if err != nil {
		return brokers.Event{}, err
	}
	fev.Key = ev.Entity()
	t.number(&fev, t.eventState(fev.ID))
	return fev, nil
}

// down says why the consumer cannot take an event at all, or "".
func (t *Target) down() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.exitErr != "" {
		return t.exitErr
	}
	if !t.anyAck && t.silent >= maxSilent {
		p := t.broker.Placeholders()
		return fmt.Sprintf("the consumer acknowledged no event in %d attempts of %s each: check that it subscribes to topic %q at %s as group %q (its {{broker.topic}}, {{broker.url}} and {{broker.group}}), and acknowledges what it processed",
			t.silent, t.cfg.Timeout, p[brokers.PlaceholderTopic], p[brokers.PlaceholderURL], p[brokers.PlaceholderGroup])
	}
	return ""
}

// TimeoutField names the setting that bounds an attempt's wait for the
// consumer's acknowledgement: what to raise for a consumer that is slow.
func (t *Target) TimeoutField() string { return "broker.timeout" }

// maxSilent is how many attempts in a row may time out, with no event
// ever acknowledged, before every further attempt fails at once.
const maxSilent = 3

func (t *Target) eventState(id string) *eventState {
	t.mu.Lock()
	defer t.mu.Unlock()
	st := t.state[id]
	if st == nil {
		st = &eventState{}
		t.state[id] = st
	}
	return st
}

func (t *Target) deadCh() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.dead
}

// lastSeq is the log's last sequence number.
func (t *Target) lastSeq() int64 {
	obs := t.log.Observations()
	if len(obs) == 0 {
		return 0
	}
	return obs[len(obs)-1].Seq
}

// Call implements harness.Target: one publish of the call's event (or, when
// the previous attempt ended before the consumer acknowledged it, none: the
// broker redelivers it), then a wait until the consumer has acknowledged
// it and every delivery it was given has ended. The reply is ok once
// acknowledged, info when the consumer was killed or did not acknowledge
// in time.
func (t *Target) Call(ctx context.Context, c harness.Call) harness.Reply {
	return t.call(ctx, c, 1)
}

// call is Call with copies of the event published (see Burst).
func (t *Target) call(ctx context.Context, c harness.Call, copies int) harness.Reply {
	if c.Key == "" {
		return harness.Reply{Outcome: harness.Fail, Error: "an event always carries its event id: there is no publish without one"}
	}
	if why := t.down(); why != "" {
		return harness.Reply{Outcome: harness.Fail, Error: why}
	}
	ev, err := t.render(c)
	if err != nil {
		return harness.Reply{Outcome: harness.Fail, Error: err.Error()}
	}
	mark, ledgerMark := t.lastSeq(), t.env.Ledger.LastSeq()
	var rf *Fault
	switch x := c.Fault.(type) {
	case *Fault:
		rf = x
	case BatchFault:
		rf = x.Fault
	}
	wait := t.cfg.Timeout
	if rf != nil {
		extra, undo, err := t.arm(rf, ev, c.Marker)
		if err != nil {
			return harness.Reply{Outcome: harness.Fail, Error: err.Error()}
		}
		defer undo()
		wait += extra
	}
	dead := t.deadCh()
	st := t.eventState(ev.ID)
	t.number(&ev, st)
	t.mu.Lock()
	pending, published := st.pending, st.published
	ackMark := mark
	if pending {
		ackMark = st.mark // an ack since the interrupted attempt counts
	} else {
		st.mark = mark
	}
	t.mu.Unlock()
	reply := harness.Reply{Forwarded: true}
	// At least one delivery of each copy this attempt publishes; none
	// when it publishes nothing: the redelivery of the event left pending
	// may have come before this attempt began (a consumer that reads its
	// own pending entries as it restarts), and its ack is what counts.
	deliveries := 0
	if !pending {
		deliveries = copies
		after, err := t.fillers(c, ev, rf)
		if err != nil {
			return harness.Reply{Outcome: harness.Fail, Error: err.Error()}
		}
		if rf != nil && rf.name == NameReorder {
			// The later event goes first, and is processed first.
			if err := t.publishBefore(ctx, dead, ev, after[0], wait); err != nil {
				return harness.Reply{Outcome: harness.Info, Forwarded: true, Error: err.Error(), Broker: t.trace(ev.ID, mark)}
			}
			after = nil
		}
		cp, batches := t.broker.(brokers.CopiesPublisher)
		batched := batches && copies > 1 && !published && rf == nil
		switch {
		case batched:
			// A burst's copies in one write: a consumer that reads its
			// deliveries in batches gets them in one.
			_, err = cp.PublishCopies(ctx, ev, copies)
		case published:
			_, err = t.broker.PublishAgain(ctx, ev, false)
		default:
			_, err = t.broker.Publish(ctx, ev)
		}
		for i := 1; i < copies && err == nil && !batched; i++ {
			_, err = t.broker.PublishAgain(ctx, ev, false)
		}
		for _, f := range after {
			if err != nil {
				break
			}
			_, err = t.broker.Publish(ctx, f)
		}
		if err != nil {
			return harness.Reply{Outcome: harness.Fail, Error: "publishing: " + err.Error()}
		}
		t.mu.Lock()
		st.published = true
		t.mu.Unlock()
	}
	// One deadline for the whole attempt, a retried publish's wait for
	// the first copy included.
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	notRetried := ""
	if !pending && rf != nil && (rf.name == NameDuplicatePublish || rf.name == NameDuplicatePublishDedup) {
		// The producer publishes again once the consumer has acknowledged
		// the first copy and neither the broker nor the fakes have seen
		// anything new of it for a moment, as a producer whose publish
		// timed out retries it: the copy tests whether the consumer
		// recognises an event it processed, whatever its concurrency
		// (copies processed at the same time are what a burst tests).
		// Published back to back, whether the two copies overlapped would
		// depend on timing, and so would the finding and its cause. If
		// the first copy does not settle in time, the wait below says
		// why, and the reply says that the retried publish was not made.
		first := settling{id: ev.ID, marker: c.Marker, ackMark: ackMark, mark: mark, ledgerMark: ledgerMark, deliveries: copies}
		if t.awaitSettled(wctx, dead, first) == nil && wctx.Err() == nil {
			rec, err := t.broker.PublishAgain(wctx, ev, rf.name == NameDuplicatePublishDedup)
			if err != nil {
				return harness.Reply{Outcome: harness.Info, Error: "publishing again: " + err.Error(), Broker: t.trace(ev.ID, mark)}
			}
			if !rec.Duplicate {
				deliveries = copies + 1
			}
		} else {
			notRetried = " (the retried publish was not made: the first copy did not settle in time)"
		}
	}
	slow := rf != nil && (rf.name == NameSlowConsumer || rf.name == NameRebalance)
	err = t.awaitSettled(wctx, dead, settling{
		id: ev.ID, marker: c.Marker, ackMark: ackMark, mark: mark, ledgerMark: ledgerMark, deliveries: deliveries,
		effect: slow, rebalance: rf != nil && rf.name == NameRebalance, acted: c.Acted, kills: kills(c.Fault),
	})
	reply.Broker = t.trace(ev.ID, mark)
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case err == nil:
		st.pending = false
		t.anyAck = true
		t.silent = 0
		reply.Outcome = harness.OK
		reply.Body = "acknowledged" + notRetried
		return reply
	case errors.Is(err, errKilled):
		st.pending = true
		reply.Outcome = harness.Info
		reply.Error = "the consumer was killed before it acknowledged the event"
		return reply
	case errors.Is(err, errExited):
		st.pending = true
		reply.Outcome = harness.Info
		reply.Error = t.exitErr
		return reply
	}
	st.pending = true
	reply.Outcome = harness.Info
	if ctx.Err() != nil {
		// The attempt was given up before its deadline: a fault that
		// holds the consumer's work ends it once it holds it (dep-stall),
		// or the run is ending.
		reply.Error = fmt.Sprintf("the consumer did not acknowledge event %s before the attempt was given up: a fault that holds the consumer's work (a stalled database) ends its attempt once it holds it%s",
			ev.ID, notRetried)
		return reply
	}
	t.silent++
	reply.Error = fmt.Sprintf("the consumer did not acknowledge event %s within %s (%v)%s", ev.ID, wait, err, notRetried)
	return reply
}

// publishBefore publishes later, the event of ev's entity numbered after
// it, and waits (within wait) until the consumer has acknowledged it, so
// that ev, published next, comes after a later event that was processed:
// whatever the consumer's concurrency, it can tell ev from a duplicate
// only by its id. The broker's log records ev as held meanwhile.
func (t *Target) publishBefore(ctx context.Context, dead <-chan struct{}, ev, later brokers.Event, wait time.Duration) error {
	mark := t.lastSeq()
	t.log.Record(brokers.Observation{Kind: brokers.Held, EventID: ev.ID, Detail: "entity " + ev.Entity() + ", until " + later.ID + " (" + HeaderEventSeq + " " + later.Headers[HeaderEventSeq] + ") is acknowledged"})
	if _, err := t.broker.Publish(ctx, later); err != nil {
		return fmt.Errorf("publishing the later event %s: %w", later.ID, err)
	}
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		for _, o := range t.log.Observations() {
			if o.Seq > mark && o.EventID == later.ID && o.Kind == brokers.Acked {
				return nil
			}
		}
		select {
		case <-dead:
			return fmt.Errorf("the consumer was killed before it acknowledged the later event %s", later.ID)
		case <-t.exited:
			return fmt.Errorf("the consumer exited before it acknowledged the later event %s", later.ID)
		case <-wctx.Done():
			return fmt.Errorf("the consumer did not acknowledge the later event %s within %s: %s", later.ID, wait, t.trace(later.ID, mark))
		case <-tick.C:
		}
	}
}

// fillers returns the events published right after ev for fault f: for
// a reorder, the later event that the held one is published behind; for
// a batch, the events published in one go with ev. Every filler is
// numbered after ev, as a later event of its entity.
func (t *Target) fillers(c harness.Call, ev brokers.Event, f *Fault) ([]brokers.Event, error) {
	n := 0
	switch {
	case f == nil:
	case f.name == NameReorder:
		n = 1
	case f.name == NameBatchCrash:
		n = BatchFillers
	}
	var out []brokers.Event
	for i := range n {
		fev, err := t.filler(c, ev, i+1)
		if err != nil {
			return nil, err
		}
		out = append(out, fev)
	}
	return out, nil
}

var (
	errKilled = errors.New("killed")
	errExited = errors.New("exited")
)

// arm arms redelivery fault f for event ev: in the broker, and for a slow
// consumer in the fakes (its downstream call for marker is held past the
// ack deadline). It returns how much longer the attempt may take, and
// what disarms the fakes' rule.
func (t *Target) arm(f *Fault, ev brokers.Event, marker string) (time.Duration, func(), error) {
	if ok, why := support(t.broker, f); !ok {
		return 0, nil, errors.New(why)
	}
	hold := 3 * t.cfg.AckWait
	var kind brokers.FaultKind
	switch f.name {
	case NameLostAck:
		kind = brokers.DropAck
	case NameLateAck:
		kind = brokers.DelayAck
	case NameRebalance:
		kind = brokers.Rebalance
	}
	if kind != "" {
		if err := t.broker.Arm(brokers.Fault{Kind: kind, EventID: ev.ID, Hold: hold}); err != nil {
			return 0, nil, err
		}
	}
	extra := 2 * t.cfg.AckWait
	undo := func() {}
	if f.name == NameSlowConsumer || f.name == NameRebalance {
		delay := 3 * t.cfg.AckWait
		if f.name == NameRebalance {
			delay = 2 * t.cfg.AckWait
		}
		for _, fk := range t.env.Fakes {
			fk.Arm(fakes.Rule{Marker: marker, Times: 1, Action: fakes.Delay, Delay: delay})
		}
		undo = func() {
			for _, fk := range t.env.Fakes {
				fk.DisarmMarker(marker)
			}
		}
		extra += delay
	}
	if f.name == NameDuplicatePublish || f.name == NameDuplicatePublishDedup {
		// The retried publish waits for the first copy: each copy has
		// the whole of the attempt's timeout.
		extra += t.cfg.Timeout
	}
	return extra, undo, nil
}

// settling is what an attempt at one event waits for before it is over
// (awaitSettled).
type settling struct {
	// id and marker are the event's id and its intent's marker.
	id, marker string
	// ackMark, mark and ledgerMark are the broker log's and the ledger's
	// last sequence numbers before the attempt (ackMark: before the
	// attempt that left the event pending, if one did).
	ackMark, mark, ledgerMark int64
	// deliveries is how many deliveries the attempt published.
	deliveries int
	// effect: an effect of marker must be recorded; rebalance: the group
	// must have rebalanced.
	effect, rebalance bool
	// acted, when not nil, says whether the attempt's fault has acted
	// (harness.Call.Acted): a consumer that acknowledges an event before
	// it acts on it (which the checks judge) acts after the ack the
	// attempt waits for, and a fault armed at its downstream call must
	// still be armed when the call comes, however long after the ack
	// (within the attempt's timeout). With kills, the fault kills the
	// consumer when it acts, and the attempt is over once it is dead.
	acted func() bool
	kills bool
}

// kills says whether f kills the consumer when it acts.
func kills(f faults.Fault) bool {
	_, ok := f.(faults.CrashFault)
	return ok
}

// awaitSettled waits until the consumer has acknowledged event s.id
// since s.mark, once per copy published (s.deliveries), and has ended
// every delivery it was given (acked or nacked; on Kafka, a commit after
// the last delivery), at least s.deliveries of them; every ack a fault
// dropped or held has been followed by a redelivery; with s.effect, an
// effect of the marker has been recorded (the slow downstream call is
// over); with s.rebalance, the group has rebalanced; with s.acted, the
// attempt's fault has acted (with s.kills, and the consumer is dead).
// Then it waits until neither the broker nor the fakes have had anything
// new of the event for settleQuiet, so that a redelivery being processed
// is over.
//
// An ack counts from s.ackMark (before the attempt that was interrupted,
// if one was: the consumer may have acknowledged the event before it was
// killed), deliveries and their ends from s.mark (a delivery to a killed
// consumer never ends). An event acknowledged whose fault had not acted
// yet is settled all the same when the consumer dies or ctx ends: the
// ack stands, and the harness records the fault as one that never acted.
func (t *Target) awaitSettled(ctx context.Context, dead <-chan struct{}, s settling) error {
	kafkaBroker := t.broker.Name() == "kafka"
	// Each stored copy is a message of its own, acked on its own (a
	// copy nacked while another was processed comes again later); one
	// Kafka commit after the last delivery covers them all.
	needAcks := max(1, s.deliveries)
	if kafkaBroker {
		needAcks = 1
	}
	done := func(obs []brokers.Observation) bool {
		var delivered, ended, acked, rebalanced int
		lastDelivered, lastAcked, lastFaulted := int64(0), int64(0), int64(0)
		for _, o := range obs {
			if o.Seq <= s.ackMark || o.EventID != s.id {
				continue
			}
			if o.Seq <= s.mark {
				if o.Kind == brokers.Acked {
					acked++
					lastAcked = o.Seq
				}
				continue
			}
			switch o.Kind {
			case brokers.Delivered:
				delivered++
				lastDelivered = o.Seq
			case brokers.Acked:
				acked++
				ended++
				lastAcked = o.Seq
			case brokers.AckDropped, brokers.AckHeld:
				ended++
				lastFaulted = o.Seq
			case brokers.Nacked:
				ended++
			case brokers.Rebalanced:
				rebalanced++
			}
		}
		switch {
		case acked < needAcks || delivered < s.deliveries || lastFaulted > lastDelivered:
			return false
		case s.rebalance && rebalanced == 0:
			return false
		case kafkaBroker:
			return lastAcked > lastDelivered
		}
		return ended >= delivered
	}
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		settled := done(t.log.Observations()) && (!s.effect || t.effectSince(s.marker, s.ledgerMark))
		if settled && (s.acted == nil || s.acted()) {
			if s.acted != nil && s.kills {
				// The fault acted, and its kill may still be under way.
				select {
				case <-dead:
				case <-ctx.Done():
				}
			}
			return t.quiet(ctx, s.id, s.marker)
		}
		select {
		case <-dead:
			// Read afresh: an ack made before the kill (a consumer that
			// acknowledges first) may have come since the last look, and
			// the attempt's outcome must not depend on which was seen first.
			if done(t.log.Observations()) && (!s.effect || t.effectSince(s.marker, s.ledgerMark)) {
				return t.quiet(ctx, s.id, s.marker)
			}
			return errKilled
		case <-t.exited:
			if settled {
				return nil
			}
			return errExited
		case <-ctx.Done():
			if settled {
				return nil
			}
			return errors.New(t.trace(s.id, s.mark))
		case <-tick.C:
		}
	}
}

// effectSince says whether the fakes recorded an effect of marker after
// ledger sequence number since.
func (t *Target) effectSince(marker string, since int64) bool {
	for _, e := range t.env.Ledger.Since(since) {
		if e.HasMarker(marker) {
			return true
		}
	}
	return false
}

// settleQuiet is how long nothing new may happen to an event before an
// attempt at it is over: the processing of a delivery acknowledged
// together with an earlier one (a Kafka commit covers both) ends within
// it.
const settleQuiet = 150 * time.Millisecond

// quiet waits until neither the broker log nor the fakes recorded
// anything of event id (marker) for settleQuiet, within ctx.
func (t *Target) quiet(ctx context.Context, id, marker string) error {
	changed := make(chan struct{}, 1)
	poke := func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	cancel := t.env.Ledger.Observe(func(e fakes.Effect) {
		if e.HasMarker(marker) {
			poke()
		}
	})
	defer cancel()
	seen := t.lastSeq()
	timer := time.NewTimer(settleQuiet)
	defer timer.Stop()
	for range 1000 {
		select {
		case <-changed:
		case <-timer.C:
			now := t.lastSeq()
			if now == seen {
				return nil
			}
			fresh := false
			for _, o := range t.log.Observations()[seen:] {
				fresh = fresh || o.EventID == id
			}
			seen = now
			if !fresh {
				return nil
			}
		case <-ctx.Done():
			return nil // acknowledged already: what is late is judged with the ledger
		}
		timer.Reset(settleQuiet)
	}
	return nil
}

// trace renders what the broker recorded of event id since mark.
func (t *Target) trace(id string, mark int64) string {
	var parts []string
	for _, o := range t.log.Observations() {
		if o.Seq <= mark || o.EventID != id {
			continue
		}
		s := string(o.Kind)
		if o.Attempt > 0 {
			s += fmt.Sprintf(" #%d", o.Attempt)
		}
		if o.Conn != "" {
			s += " to " + o.Conn
		}
		if o.Detail != "" && o.Kind != brokers.Published {
			s += " (" + o.Detail + ")"
		}
		parts = append(parts, s)
		if len(parts) == 40 {
			parts = append(parts, "…")
			break
		}
	}
	if len(parts) == 0 {
		return "nothing recorded"
	}
	return strings.Join(parts, ", ")
}

// memberExited records that a member exited unasked: every attempt from
// now on fails with why.
func (t *Target) memberExited(why string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.exitErr == "" && !t.closed {
		t.exitErr = why
		close(t.exited)
	}
}
