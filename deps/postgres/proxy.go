package postgres

import (
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"regexp"
	"time"

	"github.com/idemcheck/idemcheck/deps"
	"github.com/idemcheck/idemcheck/deps/internal/listener"
)

// The defaults of Config's zero fields.
const (
	DefaultStartupTimeout = 10 * time.Second
	DefaultDialTimeout    = 5 * time.Second
	DefaultMaxMessage     = 16 << 20
	// DefaultMaxHeld bounds the replies held back while a commit is
	// answered (see deps.ResetAfterCommit).
	DefaultMaxHeld = 1 << 20
)

// Config says where the real database is and how the proxy listens.
type Config struct {
	// Upstream is the real PostgreSQL's host:port.
	Upstream string
	// Listen is the proxy's address; empty means 127.0.0.1 and a free
	// port.
	Listen string
	// StartupTimeout bounds a connection's startup: the target's TLS
	// negotiation and startup message, and the database's answer up to
	// its first ReadyForQuery (authentication included).
	StartupTimeout time.Duration
	// DialTimeout bounds each connection to the real database.
	DialTimeout time.Duration
	// MaxMessage is the largest message the proxy reads whole to inspect
	// it (a statement and its parameters, an error); a larger one is
	// forwarded as it streams, unattributed, and reported.
	MaxMessage int
	// MaxHeld bounds the replies held back while a commit that a
	// ResetAfterCommit rule may drop is answered; past it they are
	// forwarded and the rule does not act on that commit.
	MaxHeld int
}

func (c Config) withDefaults() Config {
	if c.StartupTimeout <= 0 {
		c.StartupTimeout = DefaultStartupTimeout
	}
	if c.DialTimeout <= 0 {
		c.DialTimeout = DefaultDialTimeout
	}
	if c.MaxMessage <= 0 {
		c.MaxMessage = DefaultMaxMessage
	}
	if c.MaxHeld <= 0 {
		c.MaxHeld = DefaultMaxHeld
	}
	return c
}

// Proxy is a running PostgreSQL proxy.
type Proxy struct {
	cfg Config
	ctl *deps.Control
	srv *listener.Server
}

var _ deps.Proxy = (*Proxy)(nil)

// handler is the Proxy as the listener sees it.
type handler Proxy

func (h *handler) Serve(ctx context.Context, id uint64, c net.Conn) { (*Proxy)(h).serve(ctx, id, c) }

func (h *handler) Refuse(ctx context.Context, id uint64, c net.Conn, how deps.Refusal) {
	(*Proxy)(h).refuse(ctx, id, c, how)
}

// Start checks that a PostgreSQL server answers at cfg.Upstream, then
// listens and proxies until Close. The check sends the request that opens
// a TLS negotiation and expects PostgreSQL's one-byte answer: a dependency
// that does not answer or speaks another protocol is an error here, not a
// hang later.
func Start(ctx context.Context, cfg Config) (*Proxy, error) {
	cfg = cfg.withDefaults()
	if cfg.Upstream == "" {
		return nil, fmt.Errorf("postgres proxy: no upstream address: set Config.Upstream to the database's host:port")
	}
	if err := probe(ctx, cfg); err != nil {
		return nil, err
	}
	p := &Proxy{cfg: cfg, ctl: deps.NewControl(validateRule)}
	srv, err := listener.Listen(cfg.Listen, (*handler)(p))
	if err != nil {
		return nil, err
	}
	p.srv = srv
	srv.Start()
	return p, nil
}

// probe asks the upstream to negotiate TLS and checks its answer.
func probe(ctx context.Context, cfg Config) error {
	var req [8]byte
	binary.BigEndian.PutUint32(req[0:], 8)
	binary.BigEndian.PutUint32(req[4:], sslRequestCode)
	b, err := listener.Probe(ctx, cfg.Upstream, cfg.DialTimeout, req[:], "a PostgreSQL TLS request")
	if err != nil {
		return fmt.Errorf("postgres proxy: %w; is it PostgreSQL?", err)
	}
	if b != 'N' && b != 'S' && b != 'E' {
		return fmt.Errorf("postgres proxy: %w: %s answered a PostgreSQL TLS request with %q, where PostgreSQL answers 'N' or 'S'; is it PostgreSQL?", deps.ErrUpstreamProtocol, cfg.Upstream, b)
	}
	return nil
}

var sqlstateRE = regexp.MustCompile(`^[0-9A-Z]{5}$`)

// validateRule checks what is PostgreSQL's own in a rule: a SQLSTATE.
func validateRule(r deps.Rule) error {
	if r.Action == deps.Fail && r.Code != "" && !sqlstateRE.MatchString(r.Code) {
		return fmt.Errorf("the PostgreSQL fault's code %q is not a SQLSTATE: expected 5 digits or capital letters, such as 40001 or 57P01", r.Code)
	}
	return nil
}

// Protocol returns "postgres".
func (p *Proxy) Protocol() string { return "postgres" }

// Addr returns the proxy's host:port.
func (p *Proxy) Addr() string { return p.srv.Addr() }

// Upstream returns the real database's host:port.
func (p *Proxy) Upstream() string { return p.cfg.Upstream }

// Control returns the proxy's attribution, rules and events.
func (p *Proxy) Control() *deps.Control { return p.ctl }

// RefuseNew refuses new connections for d (until AcceptNew when d is 0):
// deps.RefuseStarting answers their startup with FATAL 57P03 "the
// database system is starting up"; deps.RefuseReset resets them.
func (p *Proxy) RefuseNew(how deps.Refusal, d time.Duration) { p.srv.RefuseNew(how, d) }

// AcceptNew ends a refusal window early.
func (p *Proxy) AcceptNew() { p.srv.AcceptNew() }

// DropConnections resets every open connection, the targets' and the
// database's: the database rolls back what they had not committed.
func (p *Proxy) DropConnections() { p.srv.DropConnections() }

// Close stops accepting, closes every connection and waits for the
// proxy's goroutines.
func (p *Proxy) Close() error { return p.srv.Close() }

func (p *Proxy) problem(conn uint64, err error) {
	p.ctl.Events().Record(deps.Event{Kind: deps.EventProblem, Conn: conn, Err: err})
}
