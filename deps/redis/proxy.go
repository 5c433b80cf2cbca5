package redis

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/idemcheck/idemcheck/deps"
	"github.com/idemcheck/idemcheck/deps/internal/listener"
)

// The defaults of Config's zero fields.
const (
	DefaultDialTimeout = 5 * time.Second
	DefaultMaxCommand  = 16 << 20
)

// Config says where the real Redis is and how the proxy listens.
type Config struct {
	// Upstream is the real Redis's host:port.
	Upstream string
	// Listen is the proxy's address; empty means 127.0.0.1 and a free
	// port.
	Listen string
	// DialTimeout bounds each connection to the real Redis, and Start's
	// check that it answers.
	DialTimeout time.Duration
	// MaxCommand is the largest command the proxy reads whole to inspect
	// it; a larger one is forwarded as it streams, unattributed, and
	// reported.
	MaxCommand int
}

func (c Config) withDefaults() Config {
	if c.DialTimeout <= 0 {
		c.DialTimeout = DefaultDialTimeout
	}
	if c.MaxCommand <= 0 {
		c.MaxCommand = DefaultMaxCommand
	}
	return c
}

// Proxy is a running Redis proxy.
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

// Start checks that Redis answers at cfg.Upstream (an inline PING, which
// Redis answers even before authentication, with PONG or an error), then
// listens and proxies until Close. A dependency that does not answer, or
// answers in another protocol, is an error here, not a hang later.
func Start(ctx context.Context, cfg Config) (*Proxy, error) {
	cfg = cfg.withDefaults()
	if cfg.Upstream == "" {
		return nil, fmt.Errorf("redis proxy: no upstream address: set Config.Upstream to Redis's host:port")
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

func probe(ctx context.Context, cfg Config) error {
	b, err := listener.Probe(ctx, cfg.Upstream, cfg.DialTimeout, []byte("PING\r\n"), "PING")
	if err != nil {
		return fmt.Errorf("redis proxy: %w; is it Redis?", err)
	}
	if b != '+' && b != '-' {
		return fmt.Errorf("redis proxy: %w: %s answered PING with %q, where Redis answers +PONG or an error; is it Redis?", deps.ErrUpstreamProtocol, cfg.Upstream, b)
	}
	return nil
}

// Protocol returns "redis".
func (p *Proxy) Protocol() string { return "redis" }

// Addr returns the proxy's host:port.
func (p *Proxy) Addr() string { return p.srv.Addr() }

// Upstream returns the real Redis's host:port.
func (p *Proxy) Upstream() string { return p.cfg.Upstream }

// Control returns the proxy's attribution, rules and events.
func (p *Proxy) Control() *deps.Control { return p.ctl }

// RefuseNew refuses for d (until AcceptNew when d is 0):
// deps.RefuseStarting answers every command but HELLO, AUTH and QUIT
// with -LOADING, on every connection, as a Redis loading its dataset;
// deps.RefuseReset resets new connections.
func (p *Proxy) RefuseNew(how deps.Refusal, d time.Duration) { p.srv.RefuseNew(how, d) }

// AcceptNew ends a refusal window early.
func (p *Proxy) AcceptNew() { p.srv.AcceptNew() }

// DropConnections resets every open connection, the targets' and Redis's:
// a MULTI not yet executed is discarded.
func (p *Proxy) DropConnections() { p.srv.DropConnections() }

// Close stops accepting, closes every connection and waits for the
// proxy's goroutines.
func (p *Proxy) Close() error { return p.srv.Close() }

// refuse turns away a new connection while the proxy refuses them
// (listener.Handler); a Redis that is loading accepts connections and
// answers their commands with -LOADING, which serve does.
func (p *Proxy) refuse(ctx context.Context, id uint64, c net.Conn, how deps.Refusal) {
	p.ctl.Events().Record(deps.Event{Kind: deps.EventRefused, Conn: id, Statement: string(how)})
	if how == deps.RefuseStarting {
		p.serve(ctx, id, c)
		return
	}
	listener.Reset(c)
}

// serve relays one target connection.
func (p *Proxy) serve(ctx context.Context, id uint64, client net.Conn) {
	up, err := p.srv.Dial(p.cfg.Upstream, p.cfg.DialTimeout)
	if err != nil {
		err = fmt.Errorf("%w: the proxy could not connect to Redis at %s: %v", deps.ErrUpstreamUnreachable, p.cfg.Upstream, err)
		p.problem(id, err)
		_, _ = client.Write([]byte("-ERR idemcheck proxy: " + err.Error() + "\r\n"))
		return
	}
	defer p.srv.Release(up)
	c := newConn(p, id, client, up)
	c.Record(deps.Event{Kind: deps.EventConnected})
	c.run()
}

func (p *Proxy) problem(conn uint64, err error) {
	p.ctl.Events().Record(deps.Event{Kind: deps.EventProblem, Conn: conn, Err: err})
}
