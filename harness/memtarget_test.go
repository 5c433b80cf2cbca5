package harness_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/harness"
)

// This file holds an in-memory shop for the runner tests: a harness.Target
// (with harness.Crasher and harness.Burster) that charges customers through
// an in-memory payments fake. Its flaws are planted one by one through
// shopConfig, the way the reference targets in examples/ plant theirs, so
// that each test can say which check must catch which flaw.

const (
	paymentsFake = "payments"
	opCharge     = "charge"
	opBalance    = "balance"
)

// shopConfig plants flaws in the in-memory shop; the zero value is correct:
// an atomic key claim in a store that survives a crash, a lease on
// in-progress claims (a claim made by a dead process can be taken over),
// and the key passed downstream, where the payments fake de-duplicates it.
type shopConfig struct {
	volatile        bool // the key store lives in the process and dies with it
	restartLoses    bool // a restart of the live shop (a trial's) loses the volatile store too, as a real process's would
	noDownstreamKey bool // the charge is sent downstream without the idempotency key
	noLease         bool // an in-progress claim never expires, even when its process died
	ignoreKeys      bool // no idempotency at all: every call charges
	noEffectField   bool // replies carry no effect field
	racyClaim       bool // the key is checked and claimed in two steps
	payloadDedup    bool // a new key with an already-charged payload replays that charge
	safeCharges     bool // the safe operation charges the customer
	markFirst       bool // the key is marked done before the charge is made
	downstreamRetry bool // a failed downstream charge is retried by the shop itself
	plainOnly       bool // the adapter can neither crash nor burst the shop
	burstNothing    bool // Burst returns no replies at all
	readNoEffect    bool // the safe operation's replies carry no effect field
	readNotFound    bool // the safe operation answers 404 (nothing to find)
	// sharedSlot keeps the key of the charge being made in one field of
	// the shop, not in the request: a charge that ends marks done whatever
	// key came in last, so with two keys in flight one stays unrecorded.
	sharedSlot bool
	// mismatchFails makes the first that many answers to a reused key
	// with another payload a 500 (its database connection lost), the
	// later ones the 422 refusal; below zero, every one.
	mismatchFails int
	// work is how long a charge takes downstream (real payments are not
	// instant): calls released together then overlap there.
	work time.Duration
	// forget, if set, is asked whenever a retry finds its key done: true
	// makes the shop forget the key then and charge again, downstream key
	// and all (a flaw that comes and goes).
	forget func() bool

	// onCall, if set, runs at the start of every Call; onReturn at its
	// end.
	onCall   func(ctx context.Context, c harness.Call)
	onReturn func()
	// onKill and onRestart, if set, run when the harness kills and
	// restarts the shop.
	onKill, onRestart func()
	// onStart, if set, runs when the harness starts the shop; an error
	// fails the start.
	onStart func(ctx context.Context) error
}

// shopOps are the shop's operations: a mutating charge with a dry run and
// inputs wide enough that two generated payloads never collide, and a safe
// balance query.
func shopOps() []harness.Operation {
	return []harness.Operation{
		{Name: opCharge, Mutating: true, DryRun: true, Inputs: map[string]harness.Input{
			"amount":   {Kind: "int", Min: 1, Max: 1_000_000},
			"customer": {Kind: "string", Prefix: "cus_", Length: 12},
		}},
		{Name: opBalance, Inputs: map[string]harness.Input{
			"customer": {Kind: "string", Prefix: "cus_", Length: 12},
		}},
	}
}

// shopRun collects what one spec started, for assertions after Verify.
type shopRun struct {
	mu    sync.Mutex
	shops []*memShop
	fakes []*memFake
}

func (r *shopRun) addShop(s *memShop) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.shops = append(r.shops, s)
}

func (r *shopRun) addFake(f *memFake) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.fakes = append(r.fakes, f)
}

func (r *shopRun) started() ([]*memShop, []*memFake) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*memShop(nil), r.shops...), append([]*memFake(nil), r.fakes...)
}

// shopSpec returns a spec that starts a payments fake and an in-memory shop
// with cfg, and the record of what it started.
func shopSpec(name string, cfg shopConfig) (harness.Spec, *shopRun) {
	run := &shopRun{}
	spec := harness.Spec{
		Name: name,
		Kind: "func",
		Fakes: []harness.FakeStarter{func(_ context.Context, l *fakes.Ledger) (fakes.Fake, error) {
			f := newMemFake(l)
			run.addFake(f)
			return f, nil
		}},
		Start: func(ctx context.Context, env *harness.Env) (harness.Target, error) {
			if cfg.onStart != nil {
				if err := cfg.onStart(ctx); err != nil {
					return nil, err
				}
			}
			f, ok := env.Fakes[paymentsFake].(*memFake)
			if !ok {
				return nil, errors.New("the payments fake is not running")
			}
			s := &memShop{name: name, cfg: cfg, fake: f, alive: true, store: map[string]*claim{}, byPayload: map[string]*claim{}}
			run.addShop(s)
			if cfg.plainOnly {
				return plainTarget{s}, nil
			}
			return s, nil
		},
	}
	return spec, run
}

// plainTarget hides the shop's Crasher and Burster abilities.
type plainTarget struct{ s *memShop }

func (p plainTarget) Info() harness.TargetInfo { return p.s.Info() }
func (p plainTarget) Call(ctx context.Context, c harness.Call) harness.Reply {
	return p.s.Call(ctx, c)
}
func (p plainTarget) Supports(f faults.Fault) bool { return p.s.Supports(f) }
func (p plainTarget) Close() error                 { return p.s.Close() }

// claim is what the shop's key store holds for one key.
type claim struct {
	payload  string
	done     bool
	gen      int // the incarnation of the process that made the claim
	status   int
	identity string
}

// memShop is the in-memory shop. Its process is modelled by an incarnation
// number: Kill bumps it, and a handler that finds it changed after a
// downstream call knows its process died and stops there.
type memShop struct {
	name string
	cfg  shopConfig
	fake *memFake

	mu        sync.Mutex
	gen       int
	alive     bool
	store     map[string]*claim
	byPayload map[string]*claim
	orders    int
	current   string // sharedSlot: the key of the charge begun last
	mismatch  int    // answers given to a reused key with another payload

	calls    atomic.Int64
	kills    atomic.Int64
	restarts atomic.Int64
	closes   atomic.Int64
}

var (
	_ harness.Target  = (*memShop)(nil)
	_ harness.Crasher = (*memShop)(nil)
	_ harness.Burster = (*memShop)(nil)
)

// Info implements harness.Target.
func (s *memShop) Info() harness.TargetInfo {
	return harness.TargetInfo{Name: s.name, Kind: "func", Operations: shopOps()}
}

// Supports implements harness.Target: every fault can be simulated in memory.
func (s *memShop) Supports(faults.Fault) bool { return true }

// Close implements harness.Target.
func (s *memShop) Close() error {
	s.closes.Add(1)
	return nil
}

// Kill implements harness.Crasher: the process dies, and with it whatever
// it kept in memory.
func (s *memShop) Kill() error {
	if s.cfg.onKill != nil {
		s.cfg.onKill()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.kills.Add(1)
	s.gen++
	s.alive = false
	if s.cfg.volatile {
		s.store = map[string]*claim{}
		s.byPayload = map[string]*claim{}
	}
	return nil
}

// Restart implements harness.Crasher.
func (s *memShop) Restart(context.Context) error {
	if s.cfg.onRestart != nil {
		s.cfg.onRestart()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.restarts.Add(1)
	if s.alive && s.cfg.volatile && s.cfg.restartLoses {
		s.gen++
		s.store = map[string]*claim{}
		s.byPayload = map[string]*claim{}
	}
	s.alive = true
	return nil
}

// Call implements harness.Target. A proxy or client fault is played
// through an in-memory exchange, as the HTTP adapter's fault proxy would.
func (s *memShop) Call(ctx context.Context, c harness.Call) harness.Reply {
	s.calls.Add(1)
	if s.cfg.onCall != nil {
		s.cfg.onCall(ctx, c)
	}
	if s.cfg.onReturn != nil {
		defer s.cfg.onReturn()
	}
	if pf, ok := c.Fault.(faults.ProxyFault); ok {
		ex := &memExchange{ctx: ctx, shop: s, call: c}
		pf.Intercept(ex)
		if ex.abandoned != nil {
			<-ex.abandoned
		}
		return ex.reply()
	}
	return s.serve(c, nil)
}

// Burst implements harness.Burster: n copies of c, released together. Each
// copy passes a barrier at the point where the race matters (before the
// atomic claim, or between the check and the claim of a racy one), so the
// copies really overlap there.
func (s *memShop) Burst(_ context.Context, c harness.Call, n int) []harness.Reply {
	if s.cfg.burstNothing {
		return nil
	}
	var arrived sync.WaitGroup
	arrived.Add(n)
	replies := make([]harness.Reply, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			gate := sync.OnceFunc(func() { arrived.Done(); arrived.Wait() })
			replies[i] = s.serve(c, gate)
			gate() // a copy that returned early still releases the others
		}()
	}
	wg.Wait()
	return replies
}

// serve handles one request. gate, when set, is called once at the point
// where concurrent copies must meet.
func (s *memShop) serve(c harness.Call, gate func()) harness.Reply {
	s.mu.Lock()
	alive, gen := s.alive, s.gen
	s.mu.Unlock()
	if !alive {
		return harness.Reply{Outcome: harness.Fail, Error: "connection refused: the shop is down"}
	}
	switch c.Operation {
	case opBalance:
		if s.cfg.safeCharges {
			if _, err := s.fake.Charge(c.Marker, "", "1"); err != nil {
				return s.reply(502, "", "", "payments: "+err.Error())
			}
			if s.dead(gen) {
				return crashed()
			}
		}
		switch {
		case s.cfg.readNotFound:
			return s.reply(404, "", "", "no such customer")
		case s.cfg.readNoEffect:
			return s.reply(200, "", "", "")
		}
		return s.reply(200, "noop", "", "")
	case opCharge:
		return s.charge(c, gen, gate)
	}
	return s.reply(404, "", "", "unknown operation "+c.Operation)
}

func (s *memShop) dead(gen int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gen != gen
}

func (s *memShop) charge(c harness.Call, gen int, gate func()) harness.Reply {
	if gate == nil {
		gate = func() {}
	}
	payload := c.Inputs["amount"] + "/" + c.Inputs["customer"]
	if c.Key == "" && !s.cfg.ignoreKeys {
		return s.reply(400, "", "", "missing idempotency key")
	}
	if c.DryRun {
		return s.reply(200, "would_create", "", "")
	}
	if s.cfg.ignoreKeys {
		s.mu.Lock()
		s.orders++
		id := fmt.Sprintf("ord_%06d", s.orders)
		s.mu.Unlock()
		if _, err := s.chargeDownstream(c.Marker, "", c.Inputs["amount"]); err != nil {
			return s.reply(503, "", "", "payments: "+err.Error())
		}
		if s.dead(gen) {
			return crashed()
		}
		return s.reply(201, "created", id, "")
	}

	if !s.cfg.racyClaim {
		gate()
	}
	s.mu.Lock()
	if s.gen != gen {
		s.mu.Unlock()
		return crashed()
	}
	forgotten := false
	if cl := s.store[c.Key]; cl != nil && cl.done && s.cfg.forget != nil && s.cfg.forget() {
		delete(s.store, c.Key)
		forgotten = true
	}
	if cl := s.store[c.Key]; cl != nil {
		switch {
		case cl.payload != payload:
			s.mismatch++
			fails := s.cfg.mismatchFails < 0 || s.mismatch <= s.cfg.mismatchFails
			s.mu.Unlock()
			if fails {
				return s.reply(500, "", "", "database: write failed: broken pipe")
			}
			return s.reply(422, "", "", "the key was used with another payload")
		case cl.done:
			s.mu.Unlock()
			return s.reply(cl.status, "noop", cl.identity, "")
		case s.cfg.noLease || cl.gen == s.gen:
			s.mu.Unlock()
			return s.reply(409, "", "", "a request with this key is in progress")
		}
		// The claim's process died: its lease is over, take it over.
	}
	if cl := s.byPayload[payload]; s.cfg.payloadDedup && cl != nil && cl.done {
		s.store[c.Key] = cl
		s.mu.Unlock()
		return s.reply(cl.status, "noop", cl.identity, "")
	}
	if s.cfg.racyClaim {
		// Checked above, claimed below: another copy may pass in between.
		s.mu.Unlock()
		gate()
		s.mu.Lock()
	}
	s.orders++
	cl := &claim{payload: payload, gen: s.gen, status: 201, identity: fmt.Sprintf("ord_%06d", s.orders), done: s.cfg.markFirst}
	s.store[c.Key] = cl
	s.current = c.Key
	s.mu.Unlock()
	if s.cfg.work > 0 {
		time.Sleep(s.cfg.work) // the downstream's latency, not a synchronisation
	}

	key := c.Key
	if s.cfg.noDownstreamKey || forgotten {
		key = "" // a forgotten key is charged as new, downstream too
	}
	_, err := s.chargeDownstream(c.Marker, key, c.Inputs["amount"])

	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gen != gen {
		return crashed() // the process died during the charge: nothing below happened
	}
	if err != nil {
		if !s.cfg.markFirst {
			delete(s.store, c.Key) // release the claim: the retry may charge
		}
		return s.reply(503, "", "", "payments: "+err.Error())
	}
	cl.done = true
	s.byPayload[payload] = cl
	if s.cfg.sharedSlot && s.current != c.Key {
		// The request's key was overwritten by a later one: the done
		// claim is filed under that key, and this key is forgotten.
		s.store[s.current] = cl
		delete(s.store, c.Key)
	}
	return s.reply(201, "created", cl.identity, "")
}

func (s *memShop) chargeDownstream(marker, key, amount string) (string, error) {
	tries := 1
	if s.cfg.downstreamRetry {
		tries = 3
	}
	var err error
	for range tries {
		var id string
		if id, err = s.fake.Charge(marker, key, amount); err == nil {
			return id, nil
		}
	}
	return "", err
}

// reply builds the shop's reply; the outcome follows the HTTP adapter's
// mapping (2xx ok, 5xx unknown, the rest a failure).
func (s *memShop) reply(status int, effect, identity, errMsg string) harness.Reply {
	r := harness.Reply{Status: status, Identity: identity, Forwarded: true}
	switch {
	case status >= 200 && status < 300:
		r.Outcome = harness.OK
	case status >= 500:
		r.Outcome = harness.Info
	default:
		r.Outcome = harness.Fail
	}
	if effect != "" && !s.cfg.noEffectField {
		r.Effect, r.HasEffect = effect, true
	}
	switch {
	case errMsg != "":
		r.Body = fmt.Sprintf(`{"ok":false,"error":%q}`, errMsg)
	case r.HasEffect:
		r.Body = fmt.Sprintf(`{"ok":true,"effect":%q,"data":{"id":%q}}`, effect, identity)
	default:
		r.Body = fmt.Sprintf(`{"ok":true,"data":{"id":%q}}`, identity)
	}
	return r
}

// crashed is what a client sees of a request whose process was killed.
func crashed() harness.Reply {
	return harness.Reply{Outcome: harness.Info, Forwarded: true, Error: "connection reset: the shop died"}
}

// memExchange plays one request through a faults.ProxyFault in memory. The
// client is always gone already, so faults that wait for it do not wait.
type memExchange struct {
	ctx  context.Context
	shop *memShop
	call harness.Call

	forwarded bool
	upstream  harness.Reply
	// abandoned is the shop's work on a request whose client left before
	// its reply: Call waits for it, so that nothing of a call goes on
	// after Call returns.
	abandoned chan harness.Reply
	responded bool
	status    int
	body      []byte
	reset     bool
}

var _ faults.Exchange = (*memExchange)(nil)

var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// Request returns the request as a server would see it: with a body (the
// call's inputs), never a nil one, since faults may read it.
func (e *memExchange) Request() *http.Request {
	body, _ := json.Marshal(map[string]any{"inputs": e.call.Inputs, "marker": e.call.Marker})
	r, _ := http.NewRequestWithContext(e.ctx, http.MethodPost, "http://shop.invalid/"+e.call.Operation, bytes.NewReader(body))
	r.Header.Set(faults.AttemptHeader, e.call.ID)
	if e.call.Key != "" {
		r.Header.Set("Idempotency-Key", e.call.Key)
	}
	return r
}

func (e *memExchange) Forward() (*faults.Upstream, error) {
	if e.forwarded {
		return nil, errors.New("forwarded twice")
	}
	e.forwarded = true
	// The shop serves the request on its own, as a server would: a client
	// that leaves (the exchange's context ends) ends the forwarding, not
	// the shop's work, just as a proxy's upstream request is cancelled.
	done := make(chan harness.Reply, 1)
	go func() { done <- e.shop.serve(e.call, nil) }()
	select {
	case e.upstream = <-done:
	case <-e.ctx.Done():
		e.abandoned = done
		return nil, e.ctx.Err()
	}
	if e.upstream.Status == 0 {
		return nil, errors.New(e.upstream.Error)
	}
	return &faults.Upstream{Status: e.upstream.Status, Body: []byte(e.upstream.Body)}, nil
}

func (e *memExchange) Respond(status int, _ http.Header, body []byte) {
	e.responded, e.status, e.body = true, status, body
}

func (e *memExchange) Reset() { e.reset = true }

func (e *memExchange) ClientGone() <-chan struct{} { return closedChan }

func (e *memExchange) reply() harness.Reply {
	switch {
	case e.reset:
		return harness.Reply{Outcome: harness.Info, Forwarded: e.forwarded, Withheld: e.forwarded && e.upstream.Status != 0, Error: "connection reset by the fault"}
	case e.responded && e.forwarded && e.status == e.upstream.Status && bytes.Equal(e.body, []byte(e.upstream.Body)):
		return e.upstream
	case e.responded:
		r := harness.Reply{Status: e.status, Body: string(e.body), Forwarded: e.forwarded, Withheld: e.forwarded}
		switch {
		case e.forwarded || e.status >= 500:
			r.Outcome = harness.Info
		case e.status >= 200 && e.status < 300:
			r.Outcome = harness.OK
		default:
			r.Outcome = harness.Fail
		}
		return r
	}
	return harness.Reply{Outcome: harness.Info, Forwarded: e.forwarded, Error: "the fault neither replied nor reset"}
}

// memFake is an in-memory payments fake: it records each charge in the
// ledger with the caller's marker, de-duplicates charges by idempotency key,
// and honours the downstream fault rules the harness arms.
type memFake struct {
	ledger *fakes.Ledger
	rules  fakes.Rules

	mu     sync.Mutex
	byKey  map[string]string
	n      int
	closed atomic.Bool
}

var _ fakes.Fake = (*memFake)(nil)

func newMemFake(l *fakes.Ledger) *memFake { return &memFake{ledger: l, byKey: map[string]string{}} }

func (f *memFake) Name() string          { return paymentsFake }
func (f *memFake) URL() string           { return "mem://" + paymentsFake }
func (f *memFake) Ledger() *fakes.Ledger { return f.ledger }
func (f *memFake) Arm(r fakes.Rule)      { f.rules.Arm(r) }
func (f *memFake) Disarm()               { f.rules.Clear() }
func (f *memFake) DisarmMarker(m string) { f.rules.ClearMarker(m) }
func (f *memFake) Close() error          { f.closed.Store(true); return nil }

var (
	errDownstreamUnavailable = errors.New("503 service unavailable")
	errDownstreamTimeout     = errors.New("timeout")
	errDownstreamReset       = errors.New("connection reset")
)

// Charge charges amount for the intent with marker; key, if set, is the
// idempotency key passed downstream.
func (f *memFake) Charge(marker, key, amount string) (string, error) {
	var markers []string
	if marker != "" {
		markers = []string{marker}
	}
	rule, matched := f.rules.Take(markers)
	if matched && rule.OnMatch != nil {
		rule.OnMatch()
	}
	if matched {
		switch rule.Action {
		case fakes.FailBefore:
			return "", errDownstreamUnavailable
		case fakes.Hang:
			return "", errDownstreamTimeout
		}
	}
	f.mu.Lock()
	if id, ok := f.byKey[key]; ok && key != "" {
		f.mu.Unlock()
		return id, nil
	}
	f.n++
	id := fmt.Sprintf("ch_%06d", f.n)
	if key != "" {
		f.byKey[key] = id
	}
	f.mu.Unlock()
	// Recorded outside the lock: the ledger's observers (crash-after-effect)
	// kill the shop synchronously.
	f.ledger.Record(fakes.Effect{Fake: paymentsFake, Kind: "charge", ID: id, Markers: markers, Key: key, Detail: map[string]string{"amount": amount}})
	if matched {
		switch rule.Action {
		case fakes.FailAfter:
			return "", errDownstreamUnavailable
		case fakes.ResetAfter:
			return "", errDownstreamReset
		case fakes.HangAfter:
			return "", errDownstreamTimeout
		}
	}
	return id, nil
}
