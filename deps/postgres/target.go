package postgres

import (
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/idemcheck/idemcheck/deps"
)

// fromTarget reads the target's messages and forwards them, acting on the
// statements of intents with armed rules.
func (c *conn) fromTarget() error {
	for {
		if c.fromClient.buffered() == 0 {
			if err := c.toUp.Flush(); err != nil {
				return err
			}
		}
		typ, n, err := c.fromClient.next()
		if err != nil {
			return err
		}
		c.authAsked.Store(false)
		if !c.fromClient.fits(n) {
			if err := c.forwardLarge(typ, n); err != nil {
				return err
			}
			continue
		}
		body, err := c.fromClient.body(n)
		if err != nil {
			return err
		}
		switch typ {
		case 'Q':
			err = c.onQuery(body)
		case 'P':
			err = c.onParse(body)
		case 'B':
			err = c.onBind(body)
		case 'E':
			err = c.onExecute(body)
		case 'C':
			err = c.onClose(body)
		case 'D', 'H':
			c.openBatch()
			err = c.forward(body)
		case 'S', 'F': // Sync, FunctionCall: answered by ReadyForQuery
			c.openBatch()
			err = c.forward(body)
			c.cur = nil
		case 'X': // Terminate
			if err := c.forward(body); err != nil {
				return err
			}
			return c.toUp.Flush()
		default: // password and SASL messages, COPY data, …
			err = c.forward(body)
		}
		if err != nil {
			return err
		}
	}
}

// forward passes the message just read on to the database unchanged.
func (c *conn) forward(body []byte) error {
	return c.fromClient.writeMessage(c.toUp, body)
}

// forwardLarge streams a message too large to inspect, and reports it
// once per connection.
func (c *conn) forwardLarge(typ byte, n int) error {
	if !c.tooLarge {
		c.tooLarge = true
		c.Problem(fmt.Errorf("%w: the target sent a %q message of %d bytes, over the %d the proxy reads whole (Config.MaxMessage); it was forwarded unattributed", deps.ErrTooLarge, typ, n, c.p.cfg.MaxMessage))
	}
	switch typ {
	case 'Q', 'E':
		b := c.openBatch()
		c.mu.Lock()
		b.execs = append(b.execs, exec{})
		c.mu.Unlock()
	case 'S', 'F':
		c.openBatch()
		defer func() { c.cur = nil }()
	}
	if typ == 'Q' {
		defer func() { c.cur = nil }()
	}
	return c.fromClient.copyMessage(c.toUp, n)
}

// openBatch returns the batch being sent, starting one if none is. At the
// start of a batch with every earlier one answered, the database's last
// status is current, and the target's side's view of the transaction is
// brought in line with it.
func (c *conn) openBatch() *batch {
	if c.cur != nil {
		return c.cur
	}
	c.takeSlot()
	b := &batch{}
	c.mu.Lock()
	if len(c.queue) == 0 {
		switch {
		case c.status == 'I':
			c.view = txView{}
		case !c.view.inTx:
			c.view = txView{inTx: true}
		}
	}
	c.queue = append(c.queue, b)
	c.mu.Unlock()
	c.cur = b
	return b
}

// takeSlot waits for room in the queue of batches, once what was written
// for the database is on its way (its answers are what make room).
func (c *conn) takeSlot() {
	select {
	case c.slots <- struct{}{}:
		return
	default:
	}
	_ = c.toUp.Flush()
	select {
	case c.slots <- struct{}{}:
	case <-c.Ctx.Done(): // closing: what follows fails anyway
	}
}

func (c *conn) onQuery(body []byte) error {
	var q pgproto3.Query
	if err := q.Decode(body); err != nil {
		return fmt.Errorf("%w: a Query message: %v", deps.ErrClientProtocol, err)
	}
	b := c.openBatch()
	defer func() { c.cur = nil }() // a Query ends its batch
	units := splitStatements(q.String)
	if strings.Contains(q.String, "idem-") {
		for i := range units {
			units[i].markers = deps.MarkersIn(units[i].text)
		}
	}
	repl, err := c.statement(b, units, q.String, func(tag string) pgproto3.FrontendMessage {
		return &pgproto3.Query{String: "SELECT " + tag}
	})
	if err != nil || repl != nil {
		return err
	}
	return c.forward(body)
}

func (c *conn) onParse(body []byte) error {
	var m pgproto3.Parse
	if err := m.Decode(body); err != nil {
		return fmt.Errorf("%w: a Parse message: %v", deps.ErrClientProtocol, err)
	}
	c.openBatch()
	ps := &prepared{info: stmtInfo{text: m.Query}}
	if units := splitStatements(m.Query); len(units) > 0 {
		ps.info = units[0]
	}
	ps.info.markers = deps.MarkersIn(m.Query)
	if len(c.stmts) >= maxPrepared {
		clear(c.stmts)
	}
	c.stmts[m.Name] = ps
	return c.forward(body)
}

func (c *conn) onBind(body []byte) error {
	var m pgproto3.Bind
	if err := m.Decode(body); err != nil {
		return fmt.Errorf("%w: a Bind message: %v", deps.ErrClientProtocol, err)
	}
	c.openBatch()
	if len(c.portals) >= maxPrepared {
		clear(c.portals)
	}
	c.portals[m.DestinationPortal] = &portal{stmt: c.stmts[m.PreparedStatement], markers: deps.Markers(m.Parameters...)}
	return c.forward(body)
}

func (c *conn) onExecute(body []byte) error {
	var m pgproto3.Execute
	if err := m.Decode(body); err != nil {
		return fmt.Errorf("%w: an Execute message: %v", deps.ErrClientProtocol, err)
	}
	b := c.openBatch()
	unit := stmtInfo{}
	if pt := c.portals[m.Portal]; pt != nil {
		if pt.stmt != nil {
			unit = pt.stmt.info
		}
		unit.markers = deps.Union(append([]string(nil), unit.markers...), pt.markers)
	}
	repl, err := c.statement(b, []stmtInfo{unit}, unit.text, func(tag string) pgproto3.FrontendMessage {
		return &pgproto3.Execute{Portal: tag}
	})
	if err != nil || repl != nil {
		return err
	}
	return c.forward(body)
}

func (c *conn) onClose(body []byte) error {
	var m pgproto3.Close
	if err := m.Decode(body); err != nil {
		return fmt.Errorf("%w: a Close message: %v", deps.ErrClientProtocol, err)
	}
	c.openBatch()
	if m.ObjectType == 'S' {
		delete(c.stmts, m.Name)
	} else {
		delete(c.portals, m.Name)
	}
	return c.forward(body)
}

// plan is what a message's statements do, as the target's side sees it
// before forwarding them.
type plan struct {
	view    txView   // the transaction once they ran
	execs   []exec   // one per statement
	intents []string // the intents of all of them
	writes  []string // the intents of their writes
	commits []string // the intents whose writes they commit
}

// plan attributes units and follows the transaction through them,
// recording a statement (and write) event for each attributed one.
func (c *conn) plan(units []stmtInfo) plan {
	v := c.view
	pl := plan{execs: make([]exec, 0, len(units))}
	for _, u := range units {
		var inherited []string
		if v.inTx && u.kind != kindBegin {
			inherited = v.intents
		}
		intents := c.p.ctl.Attribute(u.markers, inherited)
		switch u.kind {
		case kindBegin:
			v = txView{inTx: true}
		case kindCommit:
			if v.inTx {
				pl.commits = deps.Union(pl.commits, v.writes)
			}
			v = txView{}
		case kindRollback:
			v = txView{}
		case kindWrite:
			pl.writes = deps.Union(pl.writes, intents)
			if v.inTx {
				v.writes = deps.Union(append([]string(nil), v.writes...), intents)
			} else {
				pl.commits = deps.Union(pl.commits, intents)
			}
		}
		if v.inTx {
			v.intents = deps.Union(append([]string(nil), v.intents...), intents)
		}
		pl.intents = deps.Union(pl.intents, intents)
		pl.execs = append(pl.execs, exec{write: u.kind == kindWrite, intents: intents})
		c.Seen(intents, u.kind == kindWrite, u.text)
	}
	pl.view = v
	return pl
}

// statement runs the armed rules on a message carrying units: it stalls,
// or replaces the message by replacement(tag) and returns that (a Fail
// rule acted), or calls the hooks before a commit. With a nil replacement
// returned, the caller forwards the message itself.
func (c *conn) statement(b *batch, units []stmtInfo, text string, replacement func(tag string) pgproto3.FrontendMessage) (pgproto3.FrontendMessage, error) {
	pl := c.plan(units)
	rules := c.p.ctl.Rules()
	if err := c.Stall(pl.intents, text, c.toUp.Flush); err != nil {
		return nil, err
	}
	if a, x, ok := rules.Take(pl.writes, deps.Fail); ok {
		c.Fired(a, x, text)
		tag := c.faultTag()
		code := a.Rule().Code
		if code == "" {
			code = DefaultCode
		}
		msg := a.Rule().Message
		if msg == "" {
			msg = defaultMessage(code)
		}
		c.mu.Lock()
		b.faults = append(b.faults, injected{tag: tag, code: code, message: msg})
		c.mu.Unlock()
		m := replacement(tag)
		raw, err := m.Encode(nil)
		if err != nil {
			return nil, err
		}
		_, err = c.toUp.Write(raw)
		return m, err
	}
	c.view = pl.view
	c.mu.Lock()
	b.execs = append(b.execs, pl.execs...)
	if rules.Has(pl.commits, deps.ResetAfterCommit) {
		b.hold = true
	}
	c.mu.Unlock()
	return nil, c.BeforeCommit(pl.commits, text, c.toUp.Flush)
}
