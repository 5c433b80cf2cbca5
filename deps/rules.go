package deps

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Action is what a proxy does to an intent's statements when a Rule armed
// for that intent matches.
type Action string

// The actions every dependency proxy understands.
const (
	// Fail answers the intent's write with the database's own kind of
	// error (Rule.Code, Rule.Message) instead of running it. The real
	// database is made to fail the statement in its place, so that its
	// transaction state is the one the target is told about.
	Fail Action = "fail"
	// Stall holds each of the intent's statements (reads, writes and
	// commits) for Rule.Delay before forwarding it, as a database that
	// is slow to answer.
	Stall Action = "stall"
	// ResetAfterCommit forwards the commit that carries the intent's
	// write, lets the database answer it, then resets the target's
	// connection instead of forwarding that answer: the write is
	// committed and the target cannot know it.
	ResetAfterCommit Action = "reset-after-commit"
	// BeforeCommit calls Rule.Hook just before the proxy forwards the
	// commit that carries the intent's write, and forwards it once the
	// hook returns: a crash point where nothing was committed yet.
	BeforeCommit Action = "before-commit"
	// AfterCommitReply calls Rule.Hook just after the proxy forwarded the
	// database's answer to that commit: a crash point where the write is
	// committed and the target was told so.
	AfterCommitReply Action = "after-commit-reply"
)

// Rule makes a proxy misbehave on one intent's statements.
type Rule struct {
	// Intent is the marker of the intent the rule is armed for.
	Intent string `json:"intent"`
	// Action is what to do.
	Action Action `json:"action"`
	// Times is how many times the rule acts: 0 means once, a negative
	// number every time until it is disarmed. Stall counts statements,
	// the other actions writes or commits.
	Times int `json:"times,omitempty"`
	// Code is Fail's error code: a SQLSTATE for PostgreSQL (default
	// 40001, serialization_failure), an error prefix for Redis (default
	// ERR; LOADING, BUSY, READONLY, …).
	Code string `json:"code,omitempty"`
	// Message is Fail's error text; empty means the text the database
	// itself gives with Code.
	Message string `json:"message,omitempty"`
	// Delay is Stall's wait.
	Delay time.Duration `json:"delay,omitempty"`
	// Hook is called by BeforeCommit and AfterCommitReply, and, when
	// set, by ResetAfterCommit once the commit is answered and before
	// the connection is reset (the answer held back), on the
	// connection's own goroutine: the proxy forwards nothing more on that
	// connection in that direction until it returns. It may block (the
	// harness kills the target there); ctx is done once the proxy closes,
	// or, for AfterCommitReply, once the target's connection ends, and
	// the hook must then return: Close waits for it.
	Hook func(ctx context.Context, ev Event) `json:"-"`
	// OnFire, when set, is called each time the rule acts, before the
	// proxy acts on it, on the connection's goroutine: it must not block.
	OnFire func(ev Event) `json:"-"`
	// Drop, for BeforeCommit, stops the commit once the hook returns: it
	// is not forwarded, and both of the connection's sides are closed,
	// as they are when the target's process dies before its commit
	// leaves it (the database rolls back). The harness sets it when its
	// hook kills the target.
	Drop bool `json:"drop,omitempty"`
}

// Validate says what is wrong with r, if anything.
func (r Rule) Validate() error {
	if r.Intent == "" {
		return fmt.Errorf("a dependency fault rule needs the intent it is armed for (its marker); it has none")
	}
	switch r.Action {
	case Fail, ResetAfterCommit:
	case Stall:
		if r.Delay <= 0 {
			return fmt.Errorf("a %s rule needs a positive delay; it has %s", r.Action, r.Delay)
		}
	case BeforeCommit, AfterCommitReply:
		if r.Hook == nil {
			return fmt.Errorf("a %s rule needs a hook to call; it has none", r.Action)
		}
	default:
		return fmt.Errorf("unknown dependency fault action %q: expected %s, %s, %s, %s or %s",
			r.Action, Fail, Stall, ResetAfterCommit, BeforeCommit, AfterCommitReply)
	}
	return nil
}

// Armed is a rule once armed: it says whether, and how often, it fired.
type Armed struct {
	rule  Rule
	fired chan struct{}

	mu    sync.Mutex
	left  int // < 0: unlimited
	count int
}

// Rule returns the rule as it was armed.
func (a *Armed) Rule() Rule { return a.rule }

// Fired is closed the first time the rule acts.
func (a *Armed) Fired() <-chan struct{} { return a.fired }

// Count returns how many times the rule has acted.
func (a *Armed) Count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.count
}

// take consumes one use and reports whether the rule is now used up. Rules
// hold only armed rules that have uses left.
func (a *Armed) take() (spent bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.left > 0 {
		a.left--
	}
	a.count++
	if a.count == 1 {
		close(a.fired)
	}
	return a.left == 0
}

// Rules is a concurrency-safe set of armed rules. The zero value is ready.
type Rules struct {
	mu    sync.Mutex
	armed []*Armed
}

// Arm validates r and arms it. Rules for the same intent and action are
// consulted in the order they were armed.
func (rs *Rules) Arm(r Rule) (*Armed, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	left := r.Times
	if left == 0 {
		left = 1
	}
	a := &Armed{rule: r, left: left, fired: make(chan struct{})}
	rs.mu.Lock()
	rs.armed = append(rs.armed, a)
	rs.mu.Unlock()
	return a, nil
}

// Disarm removes the rules armed for intent that are still armed.
func (rs *Rules) Disarm(intent string) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	kept := rs.armed[:0]
	for _, a := range rs.armed {
		if a.rule.Intent != intent {
			kept = append(kept, a)
		}
	}
	clear(rs.armed[len(kept):])
	rs.armed = kept
}

// Clear removes every armed rule.
func (rs *Rules) Clear() {
	rs.mu.Lock()
	rs.armed = nil
	rs.mu.Unlock()
}

// Has reports whether a rule for one of intents and action is armed,
// without using it.
func (rs *Rules) Has(intents []string, action Action) bool {
	if len(intents) == 0 {
		return false
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for _, a := range rs.armed {
		if a.rule.Action == action && contains(intents, a.rule.Intent) {
			return true
		}
	}
	return false
}

// Take uses the first armed rule for one of intents and action, and
// returns it with the intent it matched.
func (rs *Rules) Take(intents []string, action Action) (*Armed, string, bool) {
	if len(intents) == 0 {
		return nil, "", false
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for i, a := range rs.armed {
		if a.rule.Action != action || !contains(intents, a.rule.Intent) {
			continue
		}
		if a.take() {
			rs.armed = append(rs.armed[:i], rs.armed[i+1:]...)
		}
		return a, a.rule.Intent, true
	}
	return nil, "", false
}
