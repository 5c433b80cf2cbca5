package postgres

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/idemcheck/idemcheck/deps"
)

// fromDatabase reads the database's messages and forwards them, following
// each connection's transactions to know when a commit carrying an
// intent's write was answered.
func (c *conn) fromDatabase() error {
	for {
		if c.fromUp.buffered() == 0 && !c.holding {
			if err := c.toClient.Flush(); err != nil {
				return err
			}
		}
		typ, n, err := c.fromUp.next()
		if !c.first && (err == nil || typ != 0) {
			c.first = true
			if typ != 'R' && typ != 'E' && typ != 'v' {
				return c.failStartup(fmt.Errorf("%w: %s answered a PostgreSQL startup message with a %q message, where PostgreSQL asks for authentication ('R'); is it PostgreSQL?", deps.ErrUpstreamProtocol, c.p.cfg.Upstream, typ))
			}
		}
		if err != nil {
			switch {
			case isTimeout(err) && c.authAsked.Load():
				err = fmt.Errorf("%w: the target did not answer the database's authentication request within %s", deps.ErrClientProtocol, c.p.cfg.StartupTimeout)
			case isTimeout(err):
				err = fmt.Errorf("%w: the database at %s did not complete the startup within %s", deps.ErrUpstreamSilent, c.p.cfg.Upstream, c.p.cfg.StartupTimeout)
			case !errors.Is(err, deps.ErrUpstreamProtocol):
				return err
			}
			return c.failStartup(err)
		}
		if !c.ready && typ == 'R' {
			// An authentication request other than AuthenticationOk (0)
			// and SASLFinal (12) waits for the target's answer.
			c.authAsked.Store(n >= 4 && authWaits(c.fromUp.br))
		}
		b, startHold := c.head()
		if startHold {
			// What earlier batches were answered must reach the target
			// whatever becomes of this one.
			if err := c.toClient.Flush(); err != nil {
				return err
			}
			c.holding = true
		}
		switch {
		case typ == 'Z':
			err = c.onReady(n)
		case typ == 'C' && b != nil:
			err = c.onComplete(b, n)
		case (typ == 'I' || typ == 's') && b != nil: // EmptyQueryResponse, PortalSuspended
			b.done++
			err = c.pass(n)
		case typ == 'E' && b != nil:
			err = c.onError(b, n)
		default:
			err = c.pass(n)
		}
		if err != nil {
			return err
		}
	}
}

// authWaits peeks at an authentication message's code and says whether
// the database now waits for the target.
func authWaits(br *bufio.Reader) bool {
	b, err := br.Peek(4)
	if err != nil {
		return false
	}
	code := binary.BigEndian.Uint32(b)
	return code != 0 && code != 12
}

// failStartup tells the target why its connection cannot be made.
func (c *conn) failStartup(err error) error {
	if !c.ready {
		_ = writeError(c.toClient, "FATAL", "08006", "idemcheck proxy: "+err.Error())
		_ = c.toClient.Flush()
	}
	return err
}

// head returns the oldest unanswered batch, or nil, and whether its
// answers are to be held from now on.
func (c *conn) head() (*batch, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.queue) == 0 {
		return nil, false
	}
	b := c.queue[0]
	return b, b.hold && !c.holding
}

// out is where answers go: held back, or on to the target.
func (c *conn) out() io.Writer {
	if c.holding {
		return &c.held
	}
	return c.toClient
}

// pass forwards the message just read, streaming its body.
func (c *conn) pass(n int) error {
	if c.holding && c.held.Len()+n+5 > c.p.cfg.MaxHeld {
		// Too much to hold: this batch's answers go on, and no rule
		// resets its connection.
		c.mu.Lock()
		if len(c.queue) > 0 {
			c.queue[0].hold = false
		}
		c.mu.Unlock()
		if err := c.release(); err != nil {
			return err
		}
	}
	return c.fromUp.copyMessage(c.out(), n)
}

// release forwards what was held and stops holding.
func (c *conn) release() error {
	c.holding = false
	_, err := c.toClient.Write(c.held.Bytes())
	c.held.Reset()
	return err
}

// onComplete counts a completed statement and notes a completed write.
func (c *conn) onComplete(b *batch, n int) error {
	if !c.fromUp.fits(n) {
		b.done++
		return c.pass(n)
	}
	body, err := c.fromUp.body(n)
	if err != nil {
		return err
	}
	c.mu.Lock()
	if b.done < len(b.execs) {
		if e := b.execs[b.done]; e.write {
			b.ran = deps.Union(b.ran, e.intents)
		}
	}
	c.mu.Unlock()
	b.done++
	if strings.HasPrefix(string(body), "ROLLBACK") {
		b.rolledBack = true
	}
	return c.fromUp.writeMessage(c.out(), body)
}

// onError notes a failed batch, and rewrites the error of a statement a
// Fail rule replaced into the one the rule asks for; a code after which
// PostgreSQL closes the connection closes it.
func (c *conn) onError(b *batch, n int) error {
	b.failed = true
	c.mu.Lock()
	faults := b.faults
	c.mu.Unlock()
	if len(faults) == 0 || !c.fromUp.fits(n) {
		return c.pass(n)
	}
	body, err := c.fromUp.body(n)
	if err != nil {
		return err
	}
	var e pgproto3.ErrorResponse
	if err := e.Decode(body); err != nil {
		return fmt.Errorf("%w: an ErrorResponse: %v", deps.ErrUpstreamProtocol, err)
	}
	for _, f := range faults {
		if !strings.Contains(e.Message, `"`+f.tag+`"`) {
			continue
		}
		severity := "ERROR"
		if closesConnection(f.code) {
			severity = "FATAL"
		}
		if err := writeError(c.out(), severity, f.code, f.message); err != nil {
			return err
		}
		if severity == "FATAL" {
			if err := c.release(); err != nil {
				return err
			}
			if err := c.toClient.Flush(); err != nil {
				return err
			}
			return errInjectedFatal
		}
		return nil
	}
	return c.fromUp.writeMessage(c.out(), body)
}

// onReady ends a batch. When it ends a transaction that carried intents'
// writes, that transaction's commit was answered: the proxy records it,
// resets the connection instead of forwarding the answer if a
// ResetAfterCommit rule says so, and calls the AfterCommitReply hooks
// once the answer is forwarded.
func (c *conn) onReady(n int) error {
	if n != 1 {
		return fmt.Errorf("%w: a ReadyForQuery of %d bytes, where PostgreSQL sends 1", deps.ErrUpstreamProtocol, n)
	}
	body, err := c.fromUp.body(n)
	if err != nil {
		return err
	}
	status := body[0]
	c.mu.Lock()
	if !c.ready {
		c.ready, c.status = true, status
		c.mu.Unlock()
		c.startupDone()
		c.Record(deps.Event{Kind: deps.EventConnected})
		return c.fromUp.writeMessage(c.toClient, body)
	}
	b := &batch{}
	if len(c.queue) > 0 {
		b = c.queue[0]
		c.queue[0] = nil
		c.queue = c.queue[1:]
		select {
		case <-c.slots:
		default:
		}
	}
	c.status = status
	hold := b.hold
	c.mu.Unlock()

	var ended []string // the writes of the transaction this ends
	committed := false
	switch status {
	case 'T':
		c.tx.writes = deps.Union(c.tx.writes, b.ran)
	case 'E':
		c.tx.writes = deps.Union(c.tx.writes, b.ran)
		c.tx.failed = true
	default:
		ended = deps.Union(c.tx.writes, b.ran)
		committed = !b.failed && !b.rolledBack && !c.tx.failed
		c.tx = serverTx{}
	}
	if len(ended) > 0 && committed && hold && c.Withhold(ended, "") {
		c.held.Reset()
		c.holding = false
		return errReset
	}
	if c.holding {
		if err := c.release(); err != nil {
			return err
		}
	}
	if err := c.fromUp.writeMessage(c.toClient, body); err != nil {
		return err
	}
	if len(ended) == 0 {
		return nil
	}
	if err := c.toClient.Flush(); err != nil {
		return err
	}
	return c.Replied(ended, committed, "")
}
