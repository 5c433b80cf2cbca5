package http

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	nethttp "net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/targets/process"
)

// Defaults for Config.
const (
	DefaultKeyHeader      = "Idempotency-Key"
	DefaultEffectJSON     = "effect"
	DefaultIdentityJSON   = "data.id"
	DefaultReplayedHeader = "Idempotent-Replayed"
	DefaultTimeout        = 10 * time.Second
)

// maxReply bounds what is read of a reply.
const maxReply = 1 << 20

// Locator says where a value is in a reply: a dotted JSON path or a header.
type Locator struct {
	JSON   string
	Header string
}

// DryRun says how to ask for a dry run: a query parameter or a header set
// to Value (default "true").
type DryRun struct {
	Query  string
	Header string
	Value  string
}

// Operation is one HTTP operation. Path, header values and Body may use
// {{key}}, {{marker}} and {{input.NAME}}.
type Operation struct {
	Name     string
	Mutating bool
	Method   string
	Path     string
	Headers  map[string]string
	Body     string
	Inputs   map[string]harness.Input
	// DryRun, Effect and Identity override the target's when set.
	DryRun   *DryRun
	Effect   *Locator
	Identity *Locator
}

// Config describes an HTTP target.
type Config struct {
	Name string
	// BaseURL is where the target listens, e.g. http://127.0.0.1:8080.
	BaseURL        string
	KeyHeader      string
	Effect         Locator
	Identity       Locator
	DryRun         *DryRun
	ReplayedHeader string
	// Timeout bounds each attempt that has no client fault.
	Timeout    time.Duration
	Operations []Operation
}

// Target is an HTTP target behind a fault proxy.
type Target struct {
	cfg    Config
	ops    map[string]*Operation
	proxy  *faults.Proxy
	client *nethttp.Client
	info   harness.TargetInfo
	onStop func() error
	// proc is the process serving the target, when the harness started it.
	proc *process.Process
}

// New starts a fault proxy in front of cfg.BaseURL and returns the target.
func New(cfg Config) (*Target, error) {
	if cfg.KeyHeader == "" {
		cfg.KeyHeader = DefaultKeyHeader
	}
	if cfg.Effect == (Locator{}) {
		cfg.Effect.JSON = DefaultEffectJSON
	}
	if cfg.Identity == (Locator{}) {
		cfg.Identity.JSON = DefaultIdentityJSON
	}
	if cfg.ReplayedHeader == "" {
		cfg.ReplayedHeader = DefaultReplayedHeader
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if len(cfg.Operations) == 0 {
		return nil, fmt.Errorf("http target %s: no operations", cfg.Name)
	}
	proxy, err := faults.NewProxy(cfg.BaseURL, cfg.Timeout)
	if err != nil {
		return nil, err
	}
	t := &Target{
		cfg:   cfg,
		ops:   map[string]*Operation{},
		proxy: proxy,
		client: &nethttp.Client{
			// No keep-alive: net/http would silently re-send a keyed request
			// whose reused connection a fault reset.
			Transport:     &nethttp.Transport{Proxy: nil, DisableCompression: true, DisableKeepAlives: true},
			CheckRedirect: func(*nethttp.Request, []*nethttp.Request) error { return nethttp.ErrUseLastResponse },
		},
		info: harness.TargetInfo{Name: cfg.Name, Kind: "http"},
	}
	for i := range cfg.Operations {
		op := &cfg.Operations[i]
		if op.Method == "" {
			op.Method = nethttp.MethodPost
		}
		t.ops[op.Name] = op
		t.info.Operations = append(t.info.Operations, harness.Operation{
			Name: op.Name, Mutating: op.Mutating, Inputs: op.Inputs,
			DryRun: op.Mutating && t.dryRun(op) != nil,
		})
	}
	return t, nil
}

// OnClose registers fn to run when the target is closed (e.g. stopping
// the process that serves it).
func (t *Target) OnClose(fn func() error) { t.onStop = fn }

// Info implements harness.Target.
func (t *Target) Info() harness.TargetInfo { return t.info }

// Supports implements harness.Target: proxy, client and downstream faults,
// and crash faults when the harness started the target's process.
func (t *Target) Supports(f faults.Fault) bool {
	switch f.(type) {
	case faults.CrashFault:
		return t.proc != nil
	case faults.ProxyFault, faults.ClientFault, faults.DownstreamFault:
		return true
	}
	return false
}

// Kill implements harness.Crasher: SIGKILL the target's process group.
func (t *Target) Kill() error {
	if t.proc == nil {
		return fmt.Errorf("target %s: not started by idemcheck, cannot be killed", t.cfg.Name)
	}
	return t.proc.Kill()
}

// Restart implements harness.Crasher: start the process again, same
// command, environment and state directory, and wait until it is ready.
func (t *Target) Restart(ctx context.Context) error {
	if t.proc == nil {
		return fmt.Errorf("target %s: not started by idemcheck, cannot be restarted", t.cfg.Name)
	}
	t.proxy.CloseIdleConnections()
	t.client.CloseIdleConnections()
	return t.proc.Restart(ctx)
}

// Close stops the proxy and whatever OnClose registered.
func (t *Target) Close() error {
	t.client.CloseIdleConnections()
	err := t.proxy.Close()
	if t.onStop != nil {
		err = errors.Join(t.onStop(), err)
	}
	return err
}

func (t *Target) dryRun(op *Operation) *DryRun {
	if op.DryRun != nil {
		return op.DryRun
	}
	return t.cfg.DryRun
}

// Call implements harness.Target.
func (t *Target) Call(ctx context.Context, c harness.Call) harness.Reply {
	op, ok := t.ops[c.Operation]
	if !ok {
		return harness.Reply{Outcome: harness.Fail, Error: "unknown operation " + c.Operation}
	}
	req, err := t.request(ctx, t.proxy.URL(), op, c)
	if err != nil {
		return harness.Reply{Outcome: harness.Fail, Error: err.Error()}
	}
	req.Header.Set(faults.AttemptHeader, c.ID)
	timeout := t.cfg.Timeout
	if cf, ok := c.Fault.(faults.ClientFault); ok {
		timeout = cf.ClientTimeout()
	}
	pf, _ := c.Fault.(faults.ProxyFault)
	t.proxy.Arm(c.ID, pf)
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	resp, err := t.client.Do(req.WithContext(cctx))
	var body []byte
	if err == nil {
		body, err = io.ReadAll(io.LimitReader(resp.Body, maxReply))
		resp.Body.Close()
	}
	rep, got := t.proxy.Report(ctx, c.ID, timeout+5*time.Second)
	out := harness.Reply{Forwarded: rep.Forwarded, Withheld: rep.Withheld}
	if resp != nil {
		out.Status = resp.StatusCode
	}
	// What the proxy saw comes first: it knows whether the target got the
	// request at all.
	if got && rep.Refused {
		out.Outcome = harness.Fail
		out.Error = "the target refused the connection: " + rep.UpstreamError
		return out
	}
	if err != nil {
		out.Outcome = harness.Info
		if got && !rep.Forwarded && rep.UpstreamError == "" {
			out.Outcome = harness.Fail // provably never sent on
		}
		out.Error = describe(cctx, err, timeout)
		return out
	}
	out.Body = string(body)
	if len(out.Body) > 2048 {
		out.Body = out.Body[:2048]
	}
	switch {
	case got && !rep.Forwarded && rep.UpstreamError == "":
		out.Outcome = harness.Fail // answered by the proxy: the target never saw it
	case rep.UpstreamError != "":
		out.Outcome = harness.Info
		out.Error = "the target did not reply: " + rep.UpstreamError
		return out
	case rep.Withheld:
		out.Outcome = harness.Info
	default:
		out.Outcome = outcomeOf(resp.StatusCode)
	}
	t.read(op, &out, resp.Header, body)
	return out
}

func outcomeOf(status int) harness.Outcome {
	switch {
	case status >= 200 && status < 300:
		return harness.OK
	case status >= 500:
		return harness.Info
	}
	return harness.Fail
}

// read fills the reply's effect, identity and replay marker.
func (t *Target) read(op *Operation, out *harness.Reply, h nethttp.Header, body []byte) {
	// UseNumber keeps every digit of a large integer identity.
	var doc any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if dec.Decode(&doc) != nil {
		doc = nil
	}
	eff := t.cfg.Effect
	if op.Effect != nil {
		eff = *op.Effect
	}
	out.Effect, out.HasEffect = locate(eff, h, doc)
	id := t.cfg.Identity
	if op.Identity != nil {
		id = *op.Identity
	}
	out.Identity, _ = locate(id, h, doc)
	out.Replayed = strings.EqualFold(h.Get(t.cfg.ReplayedHeader), "true")
}

// Burst implements harness.Burster: n copies of the call, on pre-opened
// connections straight to the target, their last header bytes released
// together (see faults.Burst).
func (t *Target) Burst(ctx context.Context, c harness.Call, n int) []harness.Reply {
	out := make([]harness.Reply, n)
	op, ok := t.ops[c.Operation]
	if !ok {
		for i := range out {
			out[i] = harness.Reply{Outcome: harness.Fail, Error: "unknown operation " + c.Operation}
		}
		return out
	}
	req, err := t.request(ctx, t.cfg.BaseURL, op, c)
	if err == nil {
		var replies []faults.BurstReply
		replies, err = faults.Burst{N: n, Timeout: t.cfg.Timeout}.Fire(ctx, req)
		if err == nil {
			for i, br := range replies {
				r := harness.Reply{Forwarded: true, Status: br.Status}
				if br.Err != nil {
					r.Outcome = harness.Info
					r.Error = br.Err.Error()
				} else {
					r.Outcome = outcomeOf(br.Status)
					r.Body = string(br.Body)
					if len(r.Body) > 2048 {
						r.Body = r.Body[:2048]
					}
					t.read(op, &r, br.Header, br.Body)
				}
				out[i] = r
			}
			return out
		}
	}
	for i := range out {
		out[i] = harness.Reply{Outcome: harness.Info, Error: "burst: " + err.Error()}
	}
	return out
}

func (t *Target) request(ctx context.Context, base string, op *Operation, c harness.Call) (*nethttp.Request, error) {
	vars := c.Vars()
	// Values are escaped for where they land: a path segment or a query.
	rawPath, rawQuery, hasQuery := strings.Cut(op.Path, "?")
	path, err := harness.Expand(rawPath, escapedVars(vars, url.PathEscape))
	if err != nil {
		return nil, err
	}
	if hasQuery {
		q, err := harness.Expand(rawQuery, escapedVars(vars, url.QueryEscape))
		if err != nil {
			return nil, err
		}
		path += "?" + q
	}
	body, err := harness.Expand(op.Body, vars)
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(strings.TrimSuffix(base, "/") + path)
	if err != nil {
		return nil, fmt.Errorf("operation %s: path %q: %w", op.Name, path, err)
	}
	hdr := nethttp.Header{}
	if c.DryRun {
		dr := t.dryRun(op)
		if dr == nil {
			return nil, fmt.Errorf("operation %s has no dry-run mode", op.Name)
		}
		v := dr.Value
		if v == "" {
			v = "true"
		}
		if dr.Query != "" {
			q := u.Query()
			q.Set(dr.Query, v)
			u.RawQuery = q.Encode()
		} else {
			hdr.Set(dr.Header, v)
		}
	}
	var rd io.Reader
	if body != "" {
		rd = bytes.NewReader([]byte(body))
	}
	req, err := nethttp.NewRequestWithContext(ctx, op.Method, u.String(), rd)
	if err != nil {
		return nil, err
	}
	for k, v := range hdr {
		req.Header[k] = v
	}
	for k, v := range op.Headers {
		x, err := harness.Expand(v, vars)
		if err != nil {
			return nil, err
		}
		req.Header.Set(k, x)
	}
	if body != "" && req.Header.Get("Content-Type") == "" && json.Valid([]byte(body)) {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.Key != "" {
		req.Header.Set(t.cfg.KeyHeader, c.Key)
	}
	return req, nil
}

func escapedVars(vars map[string]string, escape func(string) string) map[string]string {
	out := make(map[string]string, len(vars))
	for k, v := range vars {
		out[k] = escape(v)
	}
	return out
}

func describe(ctx context.Context, err error, timeout time.Duration) string {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Sprintf("no reply within %s (the client gave up)", timeout)
	}
	return err.Error()
}

// locate reads a value from a header or a JSON document.
func locate(l Locator, h nethttp.Header, doc any) (string, bool) {
	if l.Header != "" {
		v := h.Values(l.Header)
		if len(v) == 0 {
			return "", false
		}
		return v[0], true
	}
	if l.JSON == "" || doc == nil {
		return "", false
	}
	cur := doc
	for _, part := range strings.Split(l.JSON, ".") {
		switch x := cur.(type) {
		case map[string]any:
			v, ok := x[part]
			if !ok {
				return "", false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(x) {
				return "", false
			}
			cur = x[i]
		default:
			return "", false
		}
	}
	switch x := cur.(type) {
	case string:
		return x, true
	case nil:
		return "", false
	case json.Number:
		return x.String(), true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	default:
		b, _ := json.Marshal(x)
		return string(b), true
	}
}
