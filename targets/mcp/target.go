package mcp

import (
	"context"
	"errors"
	"fmt"
	nethttp "net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/targets/process"
)

// Target is an MCP server behind the adapter: one attempt is one
// tools/call. Its methods are safe for concurrent use.
type Target struct {
	cfg    Config
	client *sdk.Client
	plans  map[string]*plan
	info   harness.TargetInfo
	notes  []string
	tools  []*sdk.Tool

	// stdio
	path string
	env  []string
	// streamable HTTP
	proxy         *faults.Proxy
	endpoint      string // the proxy's URL with the server's path
	httpTransport *nethttp.Transport
	proc          *process.Process // the HTTP server, when idemcheck started it
	onStop        func() error

	// sessions counts the sessions opened, to name them.
	sessions atomic.Int64

	connMu sync.Mutex // serialises reconnects
	mu     sync.Mutex
	main   *session
	open   map[*session]struct{}
	closed bool
}

var (
	_ harness.Target  = (*Target)(nil)
	_ harness.Crasher = (*Target)(nil)
	_ harness.Burster = (*Target)(nil)
)

// New checks cfg, connects to the server (starting a stdio server's
// first process), lists its tools and plans a call for each.
func New(ctx context.Context, cfg Config) (*Target, error) {
	t, err := newTarget(cfg)
	if err != nil {
		return nil, err
	}
	if err := t.discover(ctx); err != nil {
		_ = t.Close()
		return nil, fmt.Errorf("mcp target %s: %w", t.cfg.Name, err)
	}
	return t, nil
}

// List connects to the server as New does, and returns what tools/list
// says, annotations and input schemas included; it plans nothing.
func List(ctx context.Context, cfg Config) ([]*sdk.Tool, error) {
	t, err := newTarget(cfg)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	if err := t.list(ctx); err != nil {
		return nil, err
	}
	return t.tools, nil
}

func newTarget(cfg Config) (*Target, error) {
	cfg.fill()
	n := 0
	for _, set := range []bool{len(cfg.Command) > 0, cfg.URL != "", cfg.Server != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		return nil, fmt.Errorf("mcp target %s: set exactly one of command (stdio), url (streamable HTTP) or an in-process server", cfg.Name)
	}
	t := &Target{
		cfg:    cfg,
		client: sdk.NewClient(&sdk.Implementation{Name: "idemcheck", Version: "1"}, &sdk.ClientOptions{Capabilities: &sdk.ClientCapabilities{}}),
		info:   harness.TargetInfo{Name: cfg.Name, Kind: Kind, Request: "arguments"},
		open:   map[*session]struct{}{},
	}
	switch {
	case len(cfg.Command) > 0:
		path, err := process.Resolve(cfg.Command[0], cfg.Dir)
		if err != nil {
			return nil, fmt.Errorf("mcp target %s: %w", cfg.Name, err)
		}
		t.path = path
		t.env = append(process.OwnBaseEnv(), process.EnvList(cfg.Env, "")...)
	case cfg.URL != "":
		u, err := url.Parse(cfg.URL)
		if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
			return nil, fmt.Errorf("mcp target %s: url %q: expected the server's streamable HTTP endpoint, e.g. http://127.0.0.1:8080/mcp", cfg.Name, cfg.URL)
		}
		proxy, err := faults.NewProxy(u.Scheme+"://"+u.Host, cfg.Timeout)
		if err != nil {
			return nil, err
		}
		t.proxy = proxy
		t.endpoint = proxy.URL() + u.EscapedPath()
		if u.RawQuery != "" {
			t.endpoint += "?" + u.RawQuery
		}
		t.httpTransport = &nethttp.Transport{Proxy: nil, DisableCompression: true}
	}
	return t, nil
}

// list reads the server's tools (every page of tools/list).
func (t *Target) list(ctx context.Context) error {
	s, err := t.session(ctx)
	if err != nil {
		return err
	}
	lctx, cancel := context.WithTimeout(ctx, t.cfg.Timeout)
	defer cancel()
	for tool, err := range s.cs.Tools(lctx, nil) {
		if err != nil {
			return fmt.Errorf("tools/list: %w", err)
		}
		t.tools = append(t.tools, tool)
	}
	return nil
}

// discover lists the server's tools and plans the calls.
func (t *Target) discover(ctx context.Context) error {
	if err := t.list(ctx); err != nil {
		return err
	}
	pl, ops, notes, err := plans(t.cfg, t.tools)
	if err != nil {
		return err
	}
	if len(ops) == 0 {
		return errors.New("the server lists no tools")
	}
	t.plans, t.info.Operations, t.notes = pl, ops, notes
	t.info.Capabilities = t.capabilities()
	return nil
}

// capabilities are the conventions the server's tools follow: annotations
// always (MCP has them, and a tool without is judged for it); keys when a
// mutating tool takes one (a tool with none is judged by what its
// annotations promise); an effect field and dry runs as the other kinds.
func (t *Target) capabilities() *harness.Capabilities {
	// Over stdio every session is a server process of its own.
	c := &harness.Capabilities{EffectField: true, DryRun: true, Annotations: true, SessionProcess: len(t.cfg.Command) > 0}
	for _, p := range t.plans {
		if p.mutating && (p.key.In == InArgument || p.key.In == InMeta) {
			c.Keys = true
		}
	}
	return c
}

// Tools returns the tools the server listed, annotations included.
func (t *Target) Tools() []*sdk.Tool { return t.tools }

// Notes says where the configuration overrode what the annotations say.
func (t *Target) Notes() []string { return t.notes }

// Info implements harness.Target.
func (t *Target) Info() harness.TargetInfo { return t.info }

// Supports implements harness.Target: every proxy and client fault (over
// stdio through the relay, over HTTP through the fault proxy), downstream
// faults, and crashes of a server idemcheck started.
func (t *Target) Supports(f faults.Fault) bool {
	switch f.(type) {
	case faults.CrashFault:
		return len(t.cfg.Command) > 0 || t.proc != nil
	case faults.ProxyFault, faults.ClientFault, faults.DownstreamFault:
		return true
	}
	return false
}

var _ harness.Disrupter = (*Target)(nil)

// DisruptedBy implements harness.Disrupter. The calls share one session,
// which a reset ends for every call in flight, whatever the transport:
// over stdio (or in process) it cuts the one transport the calls share,
// over streamable HTTP the session is closed. So generated trials run a
// reset alone, as they run a crash. Over stdio the relay cuts the
// transport for any exchange reset while its client still waits: a
// client-disconnect whose client was never made to go (the server
// answered first, as it does a replayed call that calls nothing
// downstream) ends it too, so it runs alone there. The other built-in
// faults act on their own call: those that wait (a hang, a client
// timeout) reset theirs once the client has gone, and over HTTP every
// fault but a reset has a connection of its own.
func (t *Target) DisruptedBy(f faults.Fault) bool {
	switch f.(type) {
	case *faults.Reset:
		return true
	case *faults.ClientDisconnect:
		return t.proxy == nil // the relay's transport, not the proxy's
	}
	return false
}

// Kill implements harness.Crasher: SIGKILL every server process (a stdio
// target's session processes, or the HTTP server's group) and return once
// they are dead.
func (t *Target) Kill() error {
	if t.proc != nil {
		return t.proc.Kill()
	}
	if len(t.cfg.Command) == 0 {
		return fmt.Errorf("target %s: not started by idemcheck, cannot be killed", t.cfg.Name)
	}
	t.mu.Lock()
	var procs []*stdioProc
	for s := range t.open {
		if s.proc != nil {
			procs = append(procs, s.proc)
		}
	}
	t.mu.Unlock()
	for _, p := range procs {
		p.kill()
	}
	for _, p := range procs {
		<-p.done
	}
	return nil
}

// Restart implements harness.Crasher: the server starts again (same
// command, environment and state directory) and a new session is opened,
// as a client reconnects after its server died.
func (t *Target) Restart(ctx context.Context) error {
	t.mu.Lock()
	old := t.main
	t.mu.Unlock()
	if old != nil {
		t.drop(old)
	}
	if t.proc != nil {
		t.httpTransport.CloseIdleConnections()
		if err := t.proc.Restart(ctx); err != nil {
			return err
		}
	}
	_, err := t.session(ctx)
	return err
}

// Close ends every session (and every stdio server process), the proxy,
// and what OnClose registered.
func (t *Target) Close() error {
	t.mu.Lock()
	t.closed = true
	open := make([]*session, 0, len(t.open))
	for s := range t.open {
		open = append(open, s)
	}
	t.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range open {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.drop(s)
		}()
	}
	wg.Wait()
	var err error
	if t.proxy != nil {
		t.httpTransport.CloseIdleConnections()
		err = t.proxy.Close()
	}
	if t.onStop != nil {
		err = errors.Join(t.onStop(), err)
	}
	return err
}

// Call implements harness.Target: one tools/call.
func (t *Target) Call(ctx context.Context, c harness.Call) harness.Reply {
	p, ok := t.plans[c.Operation]
	if !ok {
		return harness.Reply{Outcome: harness.Fail, Error: "unknown tool " + c.Operation}
	}
	params, err := p.params(c)
	if err != nil {
		return harness.Reply{Outcome: harness.Fail, Error: err.Error()}
	}
	s, err := t.session(ctx)
	if err != nil {
		return harness.Reply{Outcome: harness.Fail, Error: "cannot open a session: " + err.Error()}
	}
	timeout := t.cfg.Timeout
	if cf, ok := c.Fault.(faults.ClientFault); ok {
		timeout = cf.ClientTimeout()
	}
	pf, _ := c.Fault.(faults.ProxyFault)
	rep := t.callOn(ctx, s, p, c.ID, params, pf, timeout)
	rep.Session = s.name
	// A reset is the transport dying with the reply: the client's session
	// dies with it, and the retry comes on a new session (over stdio, a
	// new server process), as a restarted agent's would.
	if _, reset := c.Fault.(*faults.Reset); reset || !s.alive() || rep.sessionLost {
		t.drop(s)
	}
	return rep.Reply
}

type callReply struct {
	harness.Reply
	sessionLost bool
}

// callOn makes the call on session s, with fault pf (nil for none) armed
// in the relay or the proxy.
func (t *Target) callOn(ctx context.Context, s *session, p *plan, id string, params *sdk.CallToolParams, pf faults.ProxyFault, timeout time.Duration) callReply {
	cctx, cancel := context.WithTimeout(context.WithValue(ctx, attemptKey{}, id), timeout)
	defer cancel()
	type result struct {
		res *sdk.CallToolResult
		err error
	}
	done := make(chan result, 1)
	var arm *relayArm
	switch {
	case s.relay != nil && pf != nil:
		arm = s.relay.arm(id, pf)
		defer s.relay.disarm(id)
	case t.proxy != nil:
		t.proxy.Arm(id, pf)
	}
	go func() {
		res, err := s.cs.CallTool(cctx, params)
		done <- result{res, err}
	}()
	var r result
	var rep faults.Report
	got := false
	if arm != nil {
		select {
		case r = <-done:
		case <-arm.done:
			if !arm.delivered {
				cancel() // no reply is coming: the client gives up (notifications/cancelled)
			}
			r = <-done
		}
		arm.clientGone()
		if arm.claimed() {
			select {
			case <-arm.done:
				rep, got = arm.report, true
			case <-time.After(timeout + 5*time.Second):
			}
		}
	} else if t.proxy != nil {
		r = <-done
		if neverSent(r.err) {
			// The proxy will never see it: no report to wait for.
			t.proxy.Forget(id)
			return callReply{Reply: harness.Reply{Outcome: harness.Fail, Error: "not sent: " + r.err.Error()}, sessionLost: true}
		}
		rep, got = t.proxy.Report(ctx, id, timeout+5*time.Second)
	} else {
		r = <-done
	}
	out := t.reply(p, r.res, r.err, cctx, timeout, rep, got, s)
	if arm != nil && got && arm.cut && !out.sessionLost {
		// The fault cut the transport: the session is dead, whether or
		// not the client has noticed yet, and the next call goes on a
		// new one.
		out.sessionLost = true
		out.Error += "; the session's transport was cut"
	}
	return out
}

// neverSent says whether a call failed before its request was written: the
// SDK refuses a call on a session already closing (as when a burst copy's
// reset closed the session the other copies share) before sending it, and
// says so only in its message.
func neverSent(err error) bool {
	return err != nil && errors.Is(err, sdk.ErrConnectionClosed) && strings.Contains(err.Error(), "client is closing")
}
