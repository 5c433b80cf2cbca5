package redis

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"

	"github.com/idemcheck/idemcheck/deps"
	"github.com/idemcheck/idemcheck/deps/internal/relay"
)

// errReset ends a connection that a ResetAfterCommit rule resets.
var errReset = errors.New("reset by a fault rule")

// maxPending bounds the commands forwarded and not yet answered on a
// connection: a target that pipelines more waits, as it would once
// Redis's socket buffers fill, and the proxy's memory stays bounded.
const maxPending = 1 << 14

// faultCommand replaces a command a fault answers: Redis rejects it (an
// unknown command), which keeps the answers in order and, inside MULTI,
// makes EXEC fail as a command rejected while queued does; its error is
// then replaced by the fault's.
var faultCommand = []byte("*1\r\n$15\r\nIDEMCHECK_FAULT\r\n")

// conn is one target connection and the Redis connection made for it: the
// target's side reads commands and forwards them; Redis's side reads the
// replies, which come in the order of the commands, and forwards them.
type conn struct {
	*relay.Conn
	p          *Proxy
	fromClient *commandReader
	toUp       *bufio.Writer
	fromUp     *bufio.Reader
	toClient   *bufio.Writer

	// Owned by the target's side.
	multi     bool     // inside MULTI
	multiAll  []string // intents of the commands queued in it
	multiW    []string // intents of its writes
	untracked bool     // replies no longer follow commands one for one
	tooLarge  bool

	mu      sync.Mutex
	pending []*pending    // commands forwarded and not yet answered, oldest first
	slots   chan struct{} // one per pending command, up to maxPending
}

// pending is a command forwarded and waiting for its reply.
type pending struct {
	exec    bool     // EXEC: a nil reply means the transaction did not run
	commits []string // intents whose writes this command commits
	hold    bool     // a ResetAfterCommit rule may drop its reply
	fault   []byte   // the error reply to give instead of Redis's
	text    string   // the command, for events
}

func newConn(p *Proxy, id uint64, client, up net.Conn) *conn {
	return &conn{
		Conn:       relay.New(p.srv.Context(), id, p.ctl, client, up),
		p:          p,
		fromClient: newCommandReader(client, p.cfg.MaxCommand),
		toUp:       bufio.NewWriterSize(up, 32<<10),
		fromUp:     bufio.NewReaderSize(up, lineLimit),
		toClient:   bufio.NewWriterSize(client, 32<<10),
		slots:      make(chan struct{}, maxPending),
	}
}

// run serves the connection until either side ends it.
func (c *conn) run() {
	done := make(chan struct{})
	c.p.srv.Go(func() {
		defer close(done)
		c.end(c.fromRedis())
	})
	c.end(c.fromTarget())
	<-done
}

// end reports why a side stopped, when that is worth knowing, and closes
// both connections (resetting the target's for errReset).
func (c *conn) end(err error) {
	if errors.Is(err, deps.ErrUpstreamProtocol) || errors.Is(err, deps.ErrClientProtocol) {
		c.Problem(err)
		if errors.Is(err, deps.ErrUpstreamProtocol) {
			_, _ = c.toClient.Write(errorLine("ERR", "idemcheck proxy: "+err.Error()))
			_ = c.toClient.Flush()
		}
	}
	c.Shut(errors.Is(err, errReset))
}

// fromTarget reads the target's commands and forwards them, acting on the
// commands of intents with armed rules.
func (c *conn) fromTarget() error {
	for {
		if c.fromClient.br.Buffered() == 0 {
			if err := c.toUp.Flush(); err != nil {
				return err
			}
		}
		cmd, err := c.fromClient.read(c.toUp)
		if err != nil {
			return err
		}
		if cmd.streamed {
			c.onStreamed(cmd)
			continue
		}
		if len(cmd.args) == 0 || c.untracked {
			// An empty command gets no reply; an untracked connection is
			// relayed as it is.
			if _, err := c.toUp.Write(cmd.raw); err != nil {
				return err
			}
			continue
		}
		if err := c.onCommand(cmd); err != nil {
			return err
		}
	}
}

// onStreamed accounts for a command too large to inspect, already
// forwarded.
func (c *conn) onStreamed(cmd *command) {
	if !c.tooLarge {
		c.tooLarge = true
		c.Problem(fmt.Errorf("%w: the target sent a %s command over the %d bytes the proxy reads whole (Config.MaxCommand); it was forwarded unattributed", deps.ErrTooLarge, cmd.name(), c.p.cfg.MaxCommand))
	}
	if !c.untracked {
		c.push(&pending{text: cmd.name()})
	}
}

// push queues p for its reply, once there is room: when there is none, it
// waits, with what was written for Redis on its way (its replies are what
// make room).
func (c *conn) push(p *pending) {
	select {
	case c.slots <- struct{}{}:
	default:
		_ = c.toUp.Flush()
		select {
		case c.slots <- struct{}{}:
		case <-c.Ctx.Done(): // closing: what follows fails anyway
		}
	}
	c.mu.Lock()
	c.pending = append(c.pending, p)
	c.mu.Unlock()
}

// onCommand attributes a command, follows MULTI/EXEC, runs the armed rules
// and forwards it (or what replaces it).
func (c *conn) onCommand(cmd *command) error {
	name := cmd.name()
	if untracked(cmd) {
		c.untracked = true
		_, err := c.toUp.Write(cmd.raw)
		return err
	}
	var inherited []string
	if c.multi {
		inherited = c.multiAll
	}
	intents := c.p.ctl.Attribute(deps.Markers(cmd.args[1:]...), inherited)
	write := isWrite(cmd)
	text := ""
	if len(intents) > 0 { // only an intent's command is named in events
		text = commandText(cmd)
	}
	c.Seen(intents, write, text)
	p := &pending{text: text}
	if how, ok := c.p.srv.Refusing(); ok && how == deps.RefuseStarting && !loadingAllowed[name] {
		p.fault = errorLine("LOADING", "")
		c.push(p)
		_, err := c.toUp.Write(faultCommand)
		return err
	}
	if err := c.Stall(intents, text, c.toUp.Flush); err != nil {
		return err
	}
	if write {
		if a, x, ok := c.p.ctl.Rules().Take(intents, deps.Fail); ok {
			c.Fired(a, x, text)
			code := a.Rule().Code
			if code == "" {
				code = DefaultCode
			}
			p.fault = errorLine(code, a.Rule().Message)
			c.push(p)
			_, err := c.toUp.Write(faultCommand)
			return err
		}
	}
	switch {
	case name == "MULTI":
		c.multi, c.multiAll, c.multiW = true, nil, nil
	case name == "EXEC":
		p.exec, p.commits = true, c.multiW
		c.multi, c.multiAll, c.multiW = false, nil, nil
	case name == "DISCARD":
		c.multi, c.multiAll, c.multiW = false, nil, nil
	case write && c.multi:
		c.multiW = deps.Union(c.multiW, intents)
	case write:
		p.commits = intents
	}
	if c.multi {
		c.multiAll = deps.Union(c.multiAll, intents)
	}
	if len(p.commits) > 0 {
		p.hold = c.p.ctl.Rules().Has(p.commits, deps.ResetAfterCommit)
		if err := c.BeforeCommit(p.commits, text, c.toUp.Flush); err != nil {
			return err
		}
	}
	c.push(p)
	_, err := c.toUp.Write(cmd.raw)
	return err
}

// loadingAllowed are the commands a loading Redis still serves.
var loadingAllowed = map[string]bool{"HELLO": true, "AUTH": true, "QUIT": true}

// commandText renders a command for an event.
func commandText(cmd *command) string {
	b := make([]byte, 0, 64)
	for i, a := range cmd.args {
		if i > 0 {
			b = append(b, ' ')
		}
		room := deps.StatementLimit - len(b)
		if room <= 0 {
			break
		}
		b = append(b, a[:min(len(a), room)]...)
	}
	return string(b)
}

// fromRedis reads Redis's replies and forwards them, matching each to its
// command.
func (c *conn) fromRedis() error {
	for {
		if c.fromUp.Buffered() == 0 {
			if err := c.toClient.Flush(); err != nil {
				return err
			}
		}
		line, err := readLine(c.fromUp, "database")
		if err != nil {
			return err
		}
		if !isReplyType(line[0]) {
			return fmt.Errorf("%w: %s sent a reply starting with %q; is it Redis?", deps.ErrUpstreamProtocol, c.p.cfg.Upstream, line[0])
		}
		if line[0] == '>' { // a RESP3 push: no command's reply
			if err := copyReply(c.toClient, c.fromUp, line, 0); err != nil {
				return err
			}
			continue
		}
		var p *pending
		c.mu.Lock()
		if len(c.pending) > 0 {
			p = c.pending[0]
			c.pending[0] = nil
			c.pending = c.pending[1:]
			select {
			case <-c.slots:
			default:
			}
		}
		c.mu.Unlock()
		if err := c.onReply(p, line); err != nil {
			return err
		}
	}
}

// onReply forwards the reply to p (nil on an untracked connection), or
// the fault's error instead; for a commit it records the answer, resets
// the connection instead when a ResetAfterCommit rule says so, and calls
// the AfterCommitReply hooks once the reply is forwarded.
func (c *conn) onReply(p *pending, line []byte) error {
	if p == nil || (p.fault == nil && len(p.commits) == 0) {
		return copyReply(c.toClient, c.fromUp, line, 0)
	}
	if p.fault != nil {
		if err := copyReply(io.Discard, c.fromUp, line, 0); err != nil {
			return err
		}
		_, err := c.toClient.Write(p.fault)
		return err
	}
	committed := line[0] != '-' && line[0] != '!' && !(p.exec && isNull(line))
	if committed && p.hold && c.Withhold(p.commits, p.text) {
		return errReset
	}
	if err := copyReply(c.toClient, c.fromUp, line, 0); err != nil {
		return err
	}
	if err := c.toClient.Flush(); err != nil {
		return err
	}
	return c.Replied(p.commits, committed, p.text)
}

// isNull says whether a reply line is a null (RESP2's *-1 or $-1, RESP3's
// _).
func isNull(line []byte) bool {
	s := string(line)
	return s == "*-1\r\n" || s == "$-1\r\n" || s == "_\r\n"
}
