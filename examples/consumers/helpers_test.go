package consumers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/brokers"
	"github.com/idemcheck/idemcheck/brokers/kafka"
	"github.com/idemcheck/idemcheck/brokers/nats"
	"github.com/idemcheck/idemcheck/brokers/rabbitmq"
	"github.com/idemcheck/idemcheck/brokers/redis"
	"github.com/idemcheck/idemcheck/examples/consumers"
	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/fakes/payments"
	"github.com/idemcheck/idemcheck/internal/testpar"
	"github.com/idemcheck/idemcheck/targets/process"
)

// childEnv makes the test binary run the consumer instead of the tests,
// with the JSON array of arguments in childArgsEnv.
const (
	childEnv     = "IDEMCHECK_CONSUMER_CHILD"
	childArgsEnv = "IDEMCHECK_CONSUMER_ARGS"
)

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		var args []string
		if err := json.Unmarshal([]byte(os.Getenv(childArgsEnv)), &args); err != nil {
			fmt.Fprintln(os.Stderr, "bad", childArgsEnv, err)
			os.Exit(2)
		}
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
		code := consumers.Main(ctx, args, os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	}
	// Each test waits on its broker most of its time (redelivery after
	// the ack deadline, the quiet period that ends an attempt): more of
	// them at once than one per processor.
	testpar.AtLeast(8)
	code := m.Run()
	if sharedRabbit != nil {
		if err := sharedRabbit.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "stopping RabbitMQ:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// The RabbitMQ node takes seconds to boot: its tests share one node and
// its queue, each with its own event ids, and each leaves every message
// acked. They take turns (rabbitTurn), each holding the node until its
// test has ended, while the rigs of the other brokers run beside them.
var (
	sharedRabbit     *rabbitmq.Broker
	sharedRabbitErr  error
	sharedRabbitOnce sync.Once
	rabbitTurn       sync.Mutex
)

func rabbitBroker(t *testing.T) brokers.Broker {
	t.Helper()
	if _, _, err := rabbitmq.Find(); err != nil {
		t.Skipf("skipping: %v", err)
	}
	sharedRabbitOnce.Do(func() {
		sharedRabbit, sharedRabbitErr = rabbitmq.Start(context.Background(),
			brokers.Options{AckWait: ackWait, StartTimeout: rabbitBoot})
	})
	require.NoError(t, sharedRabbitErr)
	rabbitTurn.Lock()
	t.Cleanup(rabbitTurn.Unlock) // after the consumers' and the fake's cleanups
	return sharedRabbit
}

// rabbitBoot bounds the node's boot: about 6 s of an idle two-core
// machine's time, but a minute and more while the other packages' tests
// keep both processors busy.
const rabbitBoot = 3 * time.Minute

// seq numbers the events of every rig, so that rigs sharing a broker
// never share an event id or a marker.
var seq atomic.Uint64

// ackWait is the brokers' redelivery deadline in these tests.
const ackWait = time.Second

// waitLimit bounds every wait of a scenario.
const waitLimit = 30 * time.Second

// rig is one broker, one payments fake, and the consumer processes of one
// profile reading from the broker and charging on the fake.
type rig struct {
	t       *testing.T
	broker  brokers.Broker
	pay     *payments.Server
	state   string
	profile string
	kind    string
	ctx     context.Context
}

func startBroker(t *testing.T, kind string) brokers.Broker {
	opts := brokers.Options{AckWait: ackWait}
	switch kind {
	case nats.Name:
		return nats.Must(t, opts)
	case kafka.Name:
		return kafka.Must(t, opts)
	case redis.Name:
		return redis.Must(t, opts)
	case rabbitmq.Name:
		return rabbitBroker(t)
	}
	t.Fatalf("no broker %q in these tests", kind)
	return nil
}

func newRig(t *testing.T, kind, profile string) *rig {
	t.Helper()
	// The broker first: a RabbitMQ rig may wait its turn there, and that
	// wait must not eat into the scenario's own time.
	b := startBroker(t, kind)
	ctx, cancel := context.WithTimeout(context.Background(), 2*waitLimit)
	t.Cleanup(cancel)
	return &rig{t: t, broker: b, pay: payments.Start(t), state: t.TempDir(),
		profile: profile, kind: kind, ctx: ctx}
}

// member is one consumer process.
type member struct {
	proc  *process.Process
	ready *readyWriter
}

// readyWriter counts the consumer's "consuming" lines (one per start).
type readyWriter struct {
	mu      sync.Mutex
	buf     strings.Builder
	n       int
	changed chan struct{}
}

func (w *readyWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(b)
	if n := strings.Count(w.buf.String(), "consuming "); n != w.n {
		w.n = n
		close(w.changed)
		w.changed = make(chan struct{})
	}
	return len(b), nil
}

func (w *readyWriter) wait(ctx context.Context, n int) error {
	for {
		w.mu.Lock()
		ok, ch := w.n >= n, w.changed
		out := w.buf.String()
		w.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("the consumer did not say it was consuming (start %d); its output:\n%s", n, out)
		}
	}
}

// start starts a consumer process named name, with its own state
// directory when private, else the rig's, and waits until it consumes.
func (r *rig) start(name string, workers int, private bool) *member {
	r.t.Helper()
	ph := r.broker.Placeholders()
	state := r.state
	if private {
		state = r.t.TempDir()
	}
	args := []string{"--profile", r.profile, "--broker", r.kind, "--url", ph[brokers.PlaceholderURL],
		"--topic", ph[brokers.PlaceholderTopic], "--stream", ph[brokers.PlaceholderStream],
		"--group", ph[brokers.PlaceholderGroup], "--ack-wait", ph[brokers.PlaceholderAckWait],
		"--payments", r.pay.URL(), "--state", state, "--name", name, "--workers", fmt.Sprint(workers)}
	raw, _ := json.Marshal(args)
	w := &readyWriter{changed: make(chan struct{})}
	p, err := process.Start(r.ctx, process.Spec{Name: name, Command: []string{os.Args[0]},
		Env: []string{childEnv + "=1", childArgsEnv + "=" + string(raw)}, Stdout: w})
	require.NoError(r.t, err)
	r.t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = p.Stop(ctx)
		if r.t.Failed() {
			r.t.Logf("consumer %s output:\n%s", name, p.Output())
		}
	})
	m := &member{proc: p, ready: w}
	require.NoError(r.t, w.wait(r.ctx, 1))
	return m
}

// restart starts a crashed member again and waits until it consumes.
func (r *rig) restart(m *member) {
	r.t.Helper()
	m.ready.mu.Lock()
	n := m.ready.n
	m.ready.mu.Unlock()
	require.NoError(r.t, m.proc.Restart(r.ctx))
	require.NoError(r.t, m.ready.wait(r.ctx, n+1))
}

// publish publishes an event whose payload carries a fresh marker, and
// returns the event and its marker.
func (r *rig) event() (brokers.Event, string) {
	n := seq.Add(1)
	marker := fmt.Sprintf("idem-%016x", n)
	id := fmt.Sprintf("evt_%d", n)
	payload := fmt.Sprintf(`{"amount":1234,"customer":"cus_1","description":"order for %s"}`, marker)
	return brokers.Event{ID: id, Payload: []byte(payload)}, marker
}

func (r *rig) publish(ev brokers.Event) {
	r.t.Helper()
	_, err := r.broker.Publish(r.ctx, ev)
	require.NoError(r.t, err)
}

// charges returns how many charges carry marker.
func (r *rig) charges(marker string) int { return len(r.pay.Ledger().ByMarker(marker)) }

// waitCharges waits until at least n charges carry marker.
func (r *rig) waitCharges(marker string, n int) {
	r.t.Helper()
	ch := make(chan struct{}, 1)
	cancel := r.pay.Ledger().Observe(func(e fakes.Effect) {
		if e.HasMarker(marker) {
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	})
	defer cancel()
	for r.charges(marker) < n {
		select {
		case <-ch:
		case <-r.ctx.Done():
			r.t.Fatalf("expected %d charges for %s, saw %d", n, marker, r.charges(marker))
		}
	}
}

// waitAcked waits until the broker has seen n acks of ev.
func (r *rig) waitAcked(ev brokers.Event, n int) {
	r.t.Helper()
	require.NoError(r.t, r.broker.Log().Wait(r.ctx, brokers.Acked, ev.ID, n))
}

// waitQuiet waits until the event is acked and every delivery of it has
// ended in an ack or a nack: no charge for it is still to come.
func (r *rig) waitQuiet(ev brokers.Event) {
	r.t.Helper()
	count := func(obs []brokers.Observation, k brokers.Kind) int {
		n := 0
		for _, o := range obs {
			if o.Kind == k && o.EventID == ev.ID {
				n++
			}
		}
		return n
	}
	require.NoError(r.t, r.broker.Log().WaitFunc(r.ctx, func(obs []brokers.Observation) bool {
		acked := count(obs, brokers.Acked)
		return acked > 0 && acked+count(obs, brokers.Nacked) >= count(obs, brokers.Delivered)
	}, func() string { return "every delivery of " + ev.ID + " acked or nacked" }))
}

// killOnCharge kills m the moment payments records the first charge for
// marker, before the consumer has its reply; the returned channel is
// closed once it is dead.
func (r *rig) killOnCharge(m *member, marker string) <-chan struct{} {
	dead := make(chan struct{})
	var once sync.Once
	cancel := r.pay.Ledger().Observe(func(e fakes.Effect) {
		if e.HasMarker(marker) {
			once.Do(func() {
				_ = m.proc.Kill()
				close(dead)
			})
		}
	})
	r.t.Cleanup(cancel)
	return dead
}

// killBeforeCharge kills m when its charge for marker reaches payments,
// which then charges nothing.
func (r *rig) killBeforeCharge(m *member, marker string) <-chan struct{} {
	dead := make(chan struct{})
	r.pay.Arm(fakes.Rule{Marker: marker, Action: fakes.FailBefore, OnMatch: func() {
		_ = m.proc.Kill()
		close(dead)
	}})
	return dead
}

func (r *rig) await(ch <-chan struct{}, what string) {
	r.t.Helper()
	select {
	case <-ch:
	case <-r.ctx.Done():
		r.t.Fatalf("timed out waiting for %s", what)
	}
}

// syncBuffer is a concurrency-safe buffer that closes ready on the first
// "consuming" line.
type syncBuffer struct {
	mu    sync.Mutex
	buf   strings.Builder
	ready chan struct{}
	once  sync.Once
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Write(p)
	if strings.Contains(b.buf.String(), "consuming ") {
		b.once.Do(func() { close(b.ready) })
	}
	return len(p), nil
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
