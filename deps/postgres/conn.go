package postgres

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/idemcheck/idemcheck/deps"
	"github.com/idemcheck/idemcheck/deps/internal/relay"
)

// maxPrepared bounds the prepared statements and portals the proxy
// remembers per connection; past it they are forgotten, and what runs them
// is attributed by the intent in flight only.
const maxPrepared = 1 << 14

// maxQueued bounds the batches sent and not yet answered on a connection:
// a target that pipelines more waits, as it would once the database's
// socket buffers fill, and the proxy's memory stays bounded.
const maxQueued = 1 << 14

// errReset ends a connection that a ResetAfterCommit rule resets.
var errReset = errors.New("reset by a fault rule")

// errInjectedFatal ends a connection after an injected FATAL error.
var errInjectedFatal = errors.New("closed after an injected FATAL error")

// conn is one target connection and the database connection made for it.
// Two goroutines serve it: the target's side reads the target's messages
// and forwards them (target.go); the database's side reads the answers
// and forwards them (database.go).
type conn struct {
	*relay.Conn
	p          *Proxy
	fromClient *frames
	toUp       *bufio.Writer
	fromUp     *frames
	toClient   *bufio.Writer

	// Owned by the target's side.
	stmts    map[string]*prepared
	portals  map[string]*portal
	view     txView
	cur      *batch // the batch being sent, until its Sync or Query
	faults   int
	tooLarge bool

	// Shared by both sides.
	mu     sync.Mutex
	queue  []*batch      // batches sent and not yet answered, oldest first
	slots  chan struct{} // one per queued batch, up to maxQueued
	status byte          // the last ReadyForQuery status
	ready  bool          // the first ReadyForQuery has been seen

	// Owned by the database's side.
	tx      serverTx
	held    bytes.Buffer
	holding bool
	first   bool // the database's first message has been seen

	// authAsked is set while the database waits for the target's answer
	// to an authentication request: a startup that times out then is the
	// target's doing.
	authAsked atomic.Bool
}

func newConn(p *Proxy, id uint64, client, up net.Conn) *conn {
	return &conn{
		Conn:       relay.New(p.srv.Context(), id, p.ctl, client, up),
		p:          p,
		fromClient: newFrames(client, p.cfg.MaxMessage, "target"),
		toUp:       bufio.NewWriterSize(up, 32<<10),
		fromUp:     newFrames(up, p.cfg.MaxMessage, "database"),
		toClient:   bufio.NewWriterSize(client, 32<<10),
		slots:      make(chan struct{}, maxQueued),
		stmts:      map[string]*prepared{},
		portals:    map[string]*portal{},
		status:     'I',
	}
}

// run serves the connection until either side ends it. The startup's
// deadline stays on the database's side only: the target waits for the
// database, and the database waits for the target when it asks it to
// authenticate, which the database's side tells apart when time is up.
func (c *conn) run() {
	_ = c.Client.SetDeadline(time.Time{})
	done := make(chan struct{})
	c.p.srv.Go(func() {
		defer close(done)
		c.end(c.fromDatabase())
	})
	c.end(c.fromTarget())
	<-done
}

// end reports why a side stopped, when that is worth knowing, and closes
// both connections (resetting the target's for errReset).
func (c *conn) end(err error) {
	if errors.Is(err, deps.ErrUpstreamProtocol) || errors.Is(err, deps.ErrClientProtocol) || errors.Is(err, deps.ErrUpstreamSilent) {
		c.Problem(err)
	}
	c.Shut(errors.Is(err, errReset))
}

// startupDone lifts the startup deadlines once the database is ready.
func (c *conn) startupDone() {
	_ = c.Client.SetDeadline(time.Time{})
	_ = c.Up.SetDeadline(time.Time{})
}

// isTimeout says whether err is a deadline passing.
func isTimeout(err error) bool { return errors.Is(err, os.ErrDeadlineExceeded) }

// batch is what the target sent up to a ReadyForQuery: a simple Query, or
// the extended-protocol messages up to a Sync. The target's side fills
// execs, faults and hold (under conn.mu); the database's side counts what
// completed.
type batch struct {
	execs  []exec     // the statements, in the order the database completes them
	faults []injected // statements replaced by one that fails
	hold   bool       // hold the answers until ReadyForQuery (ResetAfterCommit)

	done       int      // statements completed
	ran        []string // intents of the writes that completed
	failed     bool     // an ErrorResponse was seen
	rolledBack bool     // a ROLLBACK completed
}

// exec is a statement the database will complete.
type exec struct {
	write   bool
	intents []string
}

// injected is a statement replaced by one that fails: the error that the
// database gives for it, which names tag, is rewritten to code and
// message.
type injected struct {
	tag, code, message string
}

// txView is the target's side's view of the open transaction.
type txView struct {
	inTx    bool
	intents []string // intents of the statements in it
	writes  []string // intents of its writes
}

// serverTx is the database's side's view of the open transaction.
type serverTx struct {
	writes []string // intents of the writes that completed in it
	failed bool
}

// prepared is a statement the target parsed.
type prepared struct {
	info stmtInfo
}

// portal is a statement bound to parameters.
type portal struct {
	stmt    *prepared
	markers []string // found in the parameters
}

// faultTag names the next replaced statement of this connection.
func (c *conn) faultTag() string {
	c.faults++
	return fmt.Sprintf("idemcheck_fault_%d_%d", c.ID, c.faults)
}
