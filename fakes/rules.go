package fakes

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"
)

// Action is what a fake does to a request that a Rule matches.
type Action string

// The downstream fault actions a fake understands.
const (
	// FailBefore answers 503 without recording the effect: a clean,
	// retryable failure.
	FailBefore Action = "fail-before"
	// FailAfter records the effect, then answers 503: the ambiguous case,
	// where the caller cannot know the effect happened.
	FailAfter Action = "fail-after"
	// ResetAfter records the effect, then closes the connection without a
	// reply.
	ResetAfter Action = "reset-after"
	// Delay waits Rule.Delay before handling the request normally.
	Delay Action = "delay"
	// Hang holds the request without recording anything until the caller
	// gives up: a downstream timeout where nothing happened.
	Hang Action = "hang"
	// HangAfter records the effect, then holds the reply until the caller
	// gives up: the ambiguous downstream timeout.
	HangAfter Action = "hang-after"
	// Pass handles the request normally; with OnMatch it marks a fault
	// point without changing the fake's behaviour.
	Pass Action = "pass"
	// AwaitCaller holds the request until its caller gives up on it or
	// Rule.Delay passes, then handles it normally (the effect is recorded
	// either way): a downstream that carries out a call its caller has
	// just abandoned. Waiting for the caller makes the outcome the same
	// every time: a caller that cancels its call when its own client
	// leaves has always done so by the time the reply is written. A fake
	// without per-request callers (SMTP) treats it as Pass.
	AwaitCaller Action = "await-caller"
)

// Rule makes a fake misbehave on matching requests.
type Rule struct {
	// Marker restricts the rule to requests that carry this marker; empty
	// matches every request.
	Marker string `json:"marker,omitempty"`
	// Times is how many matching requests the rule affects; 0 means 1.
	Times int `json:"times,omitempty"`
	// Skip is how many matching requests the rule lets through untouched
	// before it acts: Skip 1 acts on the second. The requests it skips do
	// not use up Times, and are not counted as fired.
	Skip int `json:"skip,omitempty"`
	// Probability, when between 0 and 1, makes the rule act on a matching
	// request only with that probability, drawn from the Rules' seeded
	// source (see Rules.Seed); a request it spares does not use up Times.
	Probability float64 `json:"probability,omitempty"`
	// Action is what to do.
	Action Action `json:"action"`
	// Delay is the wait for the Delay action.
	Delay time.Duration `json:"delay,omitempty"`
	// OnMatch, when set, is called synchronously when the rule matches a
	// request, before the fake acts on it: the "request reached the
	// downstream, no effect yet" fault point.
	OnMatch func() `json:"-"`
	// OnRelease, when set, is called when an AwaitCaller hold ends (its
	// caller gave up, or Delay passed), before the request is handled; a
	// fake that does not hold (SMTP) calls it at once. The harness learns
	// from it when the effect lands, instead of waiting out Delay.
	OnRelease func() `json:"-"`
}

// Rules is a concurrency-safe set of armed rules. The zero value is ready;
// rules with a Probability draw from a source seeded with 1 unless Seed
// says otherwise, so a run's faults are the same for the same seed.
//
// Rules also counts, per marker, how many requests the rules armed for that
// marker acted on (Fired), and each Arm returns a handle that counts its
// own rule's (Armed.Fired): a fault armed for an attempt that never fired
// did not test what it was armed to test.
type Rules struct {
	mu    sync.Mutex
	armed []*armedRule
	rng   *rand.Rand
	// fired counts the requests acted on by the rules armed for a marker,
	// kept after the rules are used up or disarmed.
	fired map[string]int
}

// Seed seeds the source that Probability rules draw from.
func (rs *Rules) Seed(seed uint64) {
	rs.mu.Lock()
	rs.rng = rand.New(rand.NewPCG(seed, seed^0x5eed))
	rs.mu.Unlock()
}

type armedRule struct {
	Rule
	left   int
	skip   int
	handle *Armed
}

// Armed is the handle of one armed rule.
type Armed struct {
	mu    sync.Mutex
	fired int
}

// Fired returns how many requests the rule has acted on so far: 0 if it
// never matched (or, with a Probability, never drew to act), up to its
// Times. A nil *Armed has fired 0 times.
func (a *Armed) Fired() int {
	if a == nil {
		return 0
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.fired
}

// Arm adds r and returns its handle. Rules are consulted in the order they
// were armed.
func (rs *Rules) Arm(r Rule) *Armed {
	n := r.Times
	if n <= 0 {
		n = 1
	}
	h := &Armed{}
	rs.mu.Lock()
	rs.armed = append(rs.armed, &armedRule{Rule: r, left: n, skip: r.Skip, handle: h})
	rs.mu.Unlock()
	return h
}

// Fired returns how many requests the rules armed for marker m (Rule.Marker
// == m) have acted on, over every such rule armed so far, whether used up,
// disarmed or still armed. Read it before and after an attempt to learn
// whether the attempt's rule fired.
func (rs *Rules) Fired(m string) int {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.fired[m]
}

// Clear removes every armed rule.
func (rs *Rules) Clear() {
	rs.mu.Lock()
	rs.armed = nil
	rs.mu.Unlock()
}

// ClearMarker removes the armed rules restricted to marker m, leaving the
// others armed.
func (rs *Rules) ClearMarker(m string) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	kept := rs.armed[:0]
	for _, a := range rs.armed {
		if a.Marker != m {
			kept = append(kept, a)
		}
	}
	clear(rs.armed[len(kept):])
	rs.armed = kept
}

// Take consumes one use of the first armed rule matching a request that
// carries markers, and returns it.
func (rs *Rules) Take(markers []string) (Rule, bool) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for i, a := range rs.armed {
		if a.Marker != "" && !contains(markers, a.Marker) {
			continue
		}
		if a.skip > 0 {
			a.skip--
			continue
		}
		if a.Probability > 0 && a.Probability < 1 {
			if rs.rng == nil {
				rs.rng = rand.New(rand.NewPCG(1, 1^0x5eed))
			}
			if rs.rng.Float64() >= a.Probability {
				continue
			}
		}
		a.left--
		a.handle.mu.Lock()
		a.handle.fired++
		a.handle.mu.Unlock()
		if a.Marker != "" {
			if rs.fired == nil {
				rs.fired = map[string]int{}
			}
			rs.fired[a.Marker]++
		}
		if a.left <= 0 {
			rs.armed = append(rs.armed[:i], rs.armed[i+1:]...)
		}
		return a.Rule, true
	}
	return Rule{}, false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Fake is what the harness needs of a running downstream fake.
type Fake interface {
	// Name is the fake's name in configuration, e.g. "payments".
	Name() string
	// URL is the base URL targets should call.
	URL() string
	// Ledger is the record of the effects the fake saw.
	Ledger() *Ledger
	// Arm installs a downstream fault rule.
	Arm(Rule)
	// Disarm removes every rule that has not fired yet.
	Disarm()
	// DisarmMarker removes the rules restricted to one marker that have
	// not fired yet, leaving the others armed: the harness disarms an
	// attempt's rules this way, while other trials' attempts may be
	// running against the same fake.
	DisarmMarker(marker string)
	// Close stops the fake and waits for in-flight requests.
	Close() error
}

// FireCounter is the optional ability of a Fake to say whether the rules
// armed for a marker acted: Fired(m) is how many requests the rules armed
// with Rule.Marker == m have acted on since the fake started (see
// Rules.Fired). The harness reads it after an attempt: a downstream fault
// that was armed and never fired examined nothing, which is not a pass.
// Every fake of this module implements it.
type FireCounter interface {
	Fired(marker string) int
}

// FiredAt returns how many requests the rules f armed for marker have
// acted on, and whether f can tell at all (it implements FireCounter).
func FiredAt(f Fake, marker string) (n int, known bool) {
	fc, ok := f.(FireCounter)
	if !ok {
		return 0, false
	}
	return fc.Fired(marker), true
}

// Starter starts one fake writing to ledger, the one a run's fakes share.
// Each fake package exports one made from its options (payments.Starter).
type Starter func(ctx context.Context, ledger *Ledger) (Fake, error)
