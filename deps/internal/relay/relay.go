package relay

import (
	"context"
	"errors"
	"net"
	"sync"
	"time"

	"github.com/idemcheck/idemcheck/deps"
	"github.com/idemcheck/idemcheck/deps/internal/listener"
)

// Conn is a target connection and the database connection made for it.
type Conn struct {
	// ID numbers the connection in events.
	ID uint64
	// Ctl holds the proxy's rules and events.
	Ctl *deps.Control
	// Ctx is done once the connection ends or the proxy closes; hooks
	// and stalls are given it.
	Ctx context.Context
	// Client is the target's connection; Up the database's.
	Client, Up net.Conn

	cancel context.CancelFunc
	once   sync.Once
}

// New returns the Conn of client and up, whose Ctx ends with parent.
func New(parent context.Context, id uint64, ctl *deps.Control, client, up net.Conn) *Conn {
	ctx, cancel := context.WithCancel(parent)
	return &Conn{ID: id, Ctl: ctl, Ctx: ctx, Client: client, Up: up, cancel: cancel}
}

// Record adds an event about this connection.
func (c *Conn) Record(ev deps.Event) deps.Event {
	ev.Conn = c.ID
	return c.Ctl.Events().Record(ev)
}

// Problem records something the proxy cannot honour on this connection.
func (c *Conn) Problem(err error) {
	c.Record(deps.Event{Kind: deps.EventProblem, Err: err})
}

// Fired records that rule a acted for intent, and tells its OnFire.
func (c *Conn) Fired(a *deps.Armed, intent, text string) deps.Event {
	ev := c.Record(deps.Event{Kind: deps.EventFault, Intent: intent, Action: a.Rule().Action, Statement: deps.Clip(text)})
	if f := a.Rule().OnFire; f != nil {
		f(ev)
	}
	return ev
}

// Seen records a statement (and, for a write, a write) event for each of
// intents.
func (c *Conn) Seen(intents []string, write bool, text string) {
	for _, x := range intents {
		c.Record(deps.Event{Kind: deps.EventStatement, Intent: x, Statement: deps.Clip(text)})
		if write {
			c.Record(deps.Event{Kind: deps.EventWrite, Intent: x, Statement: deps.Clip(text)})
		}
	}
}

// Stall holds a statement of intents for each Stall rule armed for them,
// after flush has forwarded what came before it.
func (c *Conn) Stall(intents []string, text string, flush func() error) error {
	for _, x := range intents {
		a, _, ok := c.Ctl.Rules().Take([]string{x}, deps.Stall)
		if !ok {
			continue
		}
		c.Fired(a, x, text)
		if err := flush(); err != nil {
			return err
		}
		t := time.NewTimer(a.Rule().Delay)
		select {
		case <-t.C:
		case <-c.Ctx.Done():
			t.Stop()
			return c.Ctx.Err()
		}
	}
	return nil
}

// BeforeCommit records that the commit of intents' writes is about to be
// forwarded and calls the BeforeCommit hooks armed for them, once flush
// has forwarded what came before it.
func (c *Conn) BeforeCommit(intents []string, text string, flush func() error) error {
	for _, x := range intents {
		c.Record(deps.Event{Kind: deps.EventCommit, Intent: x, Statement: deps.Clip(text)})
	}
	for _, x := range intents {
		a, _, ok := c.Ctl.Rules().Take([]string{x}, deps.BeforeCommit)
		if !ok {
			continue
		}
		if err := flush(); err != nil {
			return err
		}
		a.Rule().Hook(c.Ctx, c.Fired(a, x, text))
		if a.Rule().Drop {
			return ErrDropped
		}
	}
	return c.Ctx.Err()
}

// ErrDropped ends a connection whose commit a BeforeCommit rule with Drop
// stopped: the commit is not forwarded, and both sides are closed.
var ErrDropped = errors.New("the commit was dropped by a fault rule: the target is gone")

// Withhold uses a ResetAfterCommit rule armed for intents, if there is
// one: it records that the commit's answer is dropped and reports true;
// the caller then resets the connection instead of forwarding it.
func (c *Conn) Withhold(intents []string, text string) bool {
	a, x, ok := c.Ctl.Rules().Take(intents, deps.ResetAfterCommit)
	if !ok {
		return false
	}
	ev := c.Fired(a, x, text)
	for _, y := range intents {
		c.Record(deps.Event{Kind: deps.EventCommitReplied, Intent: y, Committed: true, Withheld: true, Statement: deps.Clip(text)})
	}
	if h := a.Rule().Hook; h != nil {
		h(c.Ctx, ev)
	}
	return true
}

// Replied records that the answer to the commit of intents' writes was
// forwarded (and flushed) to the target and, when it committed, calls the
// AfterCommitReply hooks armed for them.
func (c *Conn) Replied(intents []string, committed bool, text string) error {
	for _, y := range intents {
		c.Record(deps.Event{Kind: deps.EventCommitReplied, Intent: y, Committed: committed, Statement: deps.Clip(text)})
	}
	if !committed {
		return nil
	}
	for _, y := range intents {
		if a, _, ok := c.Ctl.Rules().Take([]string{y}, deps.AfterCommitReply); ok {
			a.Rule().Hook(c.Ctx, c.Fired(a, y, text))
		}
	}
	return c.Ctx.Err()
}

// Shut closes both connections, once: the target's with a reset when
// reset is set (its peer sees the connection lost, not ended).
func (c *Conn) Shut(reset bool) {
	c.once.Do(func() {
		c.cancel()
		if reset {
			listener.Reset(c.Client)
		} else {
			_ = c.Client.Close()
		}
		_ = c.Up.Close()
	})
}
