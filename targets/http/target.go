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
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/internal/memnet"
	"github.com/idemcheck/idemcheck/internal/oncehttp"
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
	// Remote marks a target that may not be on this machine: its requests
	// are bounded by Limits (DefaultRemoteLimits when zero), and it takes
	// only the faults a client can cause.
	Remote bool
	// Limits bound the requests sent to the target (see Limits).
	Limits Limits
	// Burst is the largest burst the run sends, so that a rate limit lets
	// one through whole; 0 means 20.
	Burst int
	// Callers are the credentials of the callers the target serves (see
	// callers.go); the first is every call's unless the call names
	// another. Empty: one caller, whose headers are the operations'.
	Callers []Caller
	// ReplicaURLs are the base URLs of further instances of the same
	// target, serving the same state (see replicas.go): sequential
	// attempts go to BaseURL and each of them in turn, and a burst's
	// copies are split among them.
	ReplicaURLs []string
	// Profile is a published convention the target declares it follows
	// (harness.ProfileIETFDraft), passed on as Capabilities.Profile.
	Profile string
}

// Target is an HTTP target behind a fault proxy.
type Target struct {
	cfg    Config
	ops    map[string]*Operation
	info   harness.TargetInfo
	onStop func() error
	// inProcess is set for a handler served in this process (HandlerSpec).
	inProcess bool
	// insts are the instances serving the target, each behind its own
	// fault proxy: one, or one per replica (replicas.go).
	insts []*instance
	// next picks the instance of the next call (round-robin).
	next atomic.Uint64
	// limit bounds the requests sent (limits.go); nil for none.
	limit *limiter
	// client sends the calls to the fault proxies: each at most once, on
	// connections kept alive (in memory, the proxies being in this
	// process).
	client *oncehttp.Client
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
	cfg.BaseURL = loopbackURL(cfg.BaseURL)
	insts, err := newInstances(cfg)
	if err != nil {
		return nil, err
	}
	t := &Target{
		cfg:    cfg,
		ops:    map[string]*Operation{},
		insts:  insts,
		client: &oncehttp.Client{Dial: memnet.DialContext},
		info:   harness.TargetInfo{Name: cfg.Name, Kind: "http", Capabilities: capabilities()},
	}
	t.info.Capabilities.Callers = len(cfg.Callers)
	t.info.Capabilities.Profile = cfg.Profile
	if cfg.Remote && cfg.Limits == (Limits{}) {
		cfg.Limits = DefaultRemoteLimits
		t.cfg.Limits = cfg.Limits
	}
	burst := cfg.Burst
	if burst <= 0 {
		burst = 20
	}
	t.limit = newLimiter(cfg.Limits, burst)
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

// BaseURL is where the target itself listens (not its fault proxy): what
// an effect observer reads back through.
func (t *Target) BaseURL() string { return t.cfg.BaseURL }

// Supports implements harness.Target: proxy, client and downstream faults,
// and crash faults when the harness started the target's process.
func (t *Target) Supports(f faults.Fault) bool {
	if t.cfg.Remote && !remoteSupports(f) {
		return false
	}
	switch f.(type) {
	case faults.CrashFault:
		return t.started()
	case faults.ProxyFault, faults.ClientFault, faults.DownstreamFault:
		return true
	}
	return false
}

// WhyUnsupported implements harness.FaultExplainer.
func (t *Target) WhyUnsupported(f faults.Fault) string {
	switch f.(type) {
	case faults.CrashFault:
		if t.cfg.Remote {
			return "a remote target takes only what a client can do: idemcheck cannot kill it"
		}
		if t.inProcess {
			return "an in-process handler cannot be crashed: serve it as a process of its own (a start command) to test crash recovery"
		}
		if !t.started() {
			return "the target has no start command: idemcheck did not start it, so it cannot kill it"
		}
	case faults.DownstreamFault:
		if t.cfg.Remote {
			return "a remote target takes only what a client can do: its downstream calls reach no fake of this run"
		}
	}
	return ""
}

// Kill implements harness.Crasher: SIGKILL the target's process group
// (every replica's: a crash takes the whole deployment down, so that what
// a restart finds is only what the shared state kept).
func (t *Target) Kill() error {
	if !t.started() {
		return fmt.Errorf("target %s: not started by idemcheck, cannot be killed", t.cfg.Name)
	}
	var err error
	for _, in := range t.insts {
		err = errors.Join(err, in.proc.Kill())
	}
	return err
}

// Restart implements harness.Crasher: start the process (every replica)
// again, same command, environment and state directory, and wait until it
// is ready.
func (t *Target) Restart(ctx context.Context) error {
	if !t.started() {
		return fmt.Errorf("target %s: not started by idemcheck, cannot be restarted", t.cfg.Name)
	}
	for _, in := range t.insts {
		if err := in.proc.Restart(ctx); err != nil {
			return err
		}
	}
	return nil
}

// Close closes the calls' connections, stops the proxies (which close
// theirs to the target first) and whatever OnClose registered.
func (t *Target) Close() error {
	t.client.Close()
	var err error
	for _, in := range t.insts {
		err = errors.Join(err, in.proxy.Close())
	}
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
	inst, name := t.pick()
	rep := t.call(ctx, c, inst.proxy)
	rep.Instance = name
	return rep
}

// call makes the call c through proxy, in front of one instance.
func (t *Target) call(ctx context.Context, c harness.Call, proxy *faults.Proxy) harness.Reply {
	op, ok := t.ops[c.Operation]
	if !ok {
		return harness.Reply{Outcome: harness.Fail, Error: "unknown operation " + c.Operation}
	}
	req, err := t.request(ctx, proxy.URL(), op, c)
	if err != nil {
		return harness.Reply{Outcome: harness.Fail, Error: err.Error()}
	}
	if err := t.limit.take(ctx, 1); err != nil {
		return harness.Reply{Outcome: harness.Fail, Error: "not sent: " + err.Error()}
	}
	req.Header.Set(faults.AttemptHeader, c.ID)
	timeout := t.cfg.Timeout
	if cf, ok := c.Fault.(faults.ClientFault); ok {
		timeout = cf.ClientTimeout()
	}
	pf, _ := c.Fault.(faults.ProxyFault)
	proxy.Arm(c.ID, pf)
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// A faulted attempt gets a connection of its own; the others reuse
	// one. Either way the client sends the request once: a connection
	// that fails is never followed by the same request on another.
	_, downstream := c.Fault.(faults.DownstreamFault)
	resp, err := t.client.DoContext(cctx, req, c.Fault != nil && !downstream)
	var body []byte
	if err == nil {
		body, err = readReply(resp)
	} else if !oncehttp.Sent(err) {
		// Given up before the request was written whole (a short client
		// timeout while the machine is busy): the target never saw it.
		proxy.Forget(c.ID)
		return harness.Reply{Outcome: harness.Fail, Error: "not sent: " + describe(cctx, err, timeout)}
	}
	rep, got := proxy.Report(ctx, c.ID, timeout+5*time.Second)
	out := harness.Reply{Forwarded: rep.Forwarded, Withheld: rep.Withheld}
	if resp != nil {
		out.Status = resp.StatusCode
	}
	// What the proxy saw comes first: it knows whether the target got the
	// request at all.
	if got && rep.Refused {
		out.Outcome = harness.Fail
		out.Error = "the target refused the connection: " + rep.UpstreamError
		if strings.Contains(rep.UpstreamError, "TLS handshake") {
			out.Error = "the TLS handshake with the target failed, before the request: " + rep.UpstreamError + oncehttp.TLSHint(rep.UpstreamError)
		}
		return out
	}
	if err != nil {
		failedCall(&out, rep, got, c.Fault != nil, cctx, err, timeout)
		return out
	}
	out.Body = evidence(body)
	switch {
	case got && !rep.Forwarded && rep.UpstreamError == "":
		out.Outcome = harness.Fail // answered by the proxy: the target never saw it
	case rep.HeaderTooLarge:
		out.Outcome = harness.Info
		out.Error = "the target's reply was not read whole: " + rep.UpstreamError
		return out
	case rep.UpstreamError != "":
		// The status and body are the proxy's own (a 502 saying what
		// went wrong upstream), not the target's: it did not answer.
		out.Outcome, out.Status, out.Body = harness.Info, 0, ""
		out.Error = "the target did not reply: " + rep.UpstreamError
		out.TimedOut = errors.Is(cctx.Err(), context.DeadlineExceeded) || rep.TimedOut
		if rep.BodyUnfinished {
			out.Error = unfinished(rep, out.TimedOut, rep.UpstreamError, timeout)
		}
		return out
	case rep.Cut:
		// Only the start of the body is known: not a clean reply.
		out.Outcome = harness.Info
		out.Error = fmt.Sprintf("%s: %d bytes arrived, more than the %d kept", harness.ReplyCut, rep.ReplyBytes, faults.MaxReplyBody)
		return out
	case rep.Withheld:
		out.Outcome = harness.Info
	default:
		out.Outcome = outcomeOf(resp.StatusCode)
	}
	t.read(op, &out, resp.Header, body)
	return out
}

// failedCall fills out for a call whose client failed with err under
// cctx, from the proxy's report rep (got: there is one) of the attempt.
func failedCall(out *harness.Reply, rep faults.Report, got, faulted bool, cctx context.Context, err error, timeout time.Duration) {
	out.Outcome = harness.Info
	if got && !rep.Forwarded && rep.UpstreamError == "" {
		out.Outcome = harness.Fail // provably never sent on
	}
	out.Error = describe(cctx, err, timeout)
	out.TimedOut = timedOut(cctx, err)
	// The target began its reply: a body that did not end in time, not
	// silence. Its status stays out of Status: the client never got a
	// reply it could act on. So is a reply the proxy cut, when the client
	// gave up before it had it whole (a body that never ends, on a
	// machine too busy to read and pass on what is kept of it in time):
	// unless a fault made the client give up.
	if got && (rep.BodyUnfinished || rep.Cut && !faulted) {
		out.Error = unfinished(rep, out.TimedOut || rep.TimedOut, "the call failed: "+out.Error, timeout)
	}
}

// readReply reads the reply's body, up to maxReply bytes kept (the
// proxy passes on at most as much), and closes it.
func readReply(resp *nethttp.Response) ([]byte, error) {
	defer resp.Body.Close()
	return oncehttp.ReadAll(resp.Body, resp.ContentLength, maxReply)
}

// loopbackURL writes a "localhost" host as 127.0.0.1, so that it is never
// looked up: without an /etc/hosts entry the resolver would ask DNS, which
// may answer with anything, or slowly. An https URL keeps its name: the
// server's certificate is checked against it, and a development
// certificate names "localhost", not the address.
func loopbackURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "https" || !strings.EqualFold(u.Hostname(), "localhost") {
		return raw
	}
	host := "127.0.0.1"
	if p := u.Port(); p != "" {
		host += ":" + p
	}
	u.Host = host
	return u.String()
}

// maxEvidence is how much of a reply's body a Reply keeps.
const maxEvidence = 2048

// evidence is the start of a body, copied: a slice of the whole body
// would keep all of it (up to a MiB per attempt) alive in the result.
func evidence(body []byte) string {
	return string(body[:min(len(body), maxEvidence)])
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
		err = t.limit.take(ctx, n)
	}
	if err == nil {
		var replies []faults.BurstReply
		hosts := t.burstHosts()
		replies, err = faults.Burst{N: n, Timeout: t.cfg.Timeout, Hosts: hosts, Dial: memnet.DialContext}.Fire(ctx, req)
		if err == nil {
			for i, br := range replies {
				r := harness.Reply{Forwarded: true, Status: br.Status}
				if len(hosts) > 1 {
					r.Instance = instanceName(i % len(hosts)) // copy i goes to host i mod N
				}
				switch {
				case br.Err != nil && br.Status != 0:
					// The status line came, the body did not, whole.
					r.Outcome = harness.Info
					r.Error = harness.ReplyUnfinished + ": " + br.Err.Error()
				case br.Err != nil:
					r.Outcome = harness.Info
					r.Error = br.Err.Error()
				case br.Cut:
					// Only the start of the body is known: not a clean reply.
					r.Outcome = harness.Info
					r.Body = evidence(br.Body)
					r.Error = fmt.Sprintf("%s: more than the %d bytes kept arrived", harness.ReplyCut, faults.MaxBurstReplyBody)
				default:
					r.Outcome = outcomeOf(br.Status)
					r.Body = evidence(br.Body)
					t.read(op, &r, br.Header, br.Body)
				}
				out[i] = r
			}
			return out
		}
	}
	// Nothing was sent: the request could not be made, or not one
	// connection opened (faults.Burst.Fire writes nothing before then).
	msg := err.Error()
	if !strings.HasPrefix(msg, "burst: ") {
		msg = "burst: " + msg
	}
	for i := range out {
		out[i] = harness.Reply{Outcome: harness.Fail, Error: msg}
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
	if err := t.setCaller(req, c.Caller); err != nil {
		return nil, err
	}
	if c.Key != "" {
		req.Header.Set(t.cfg.KeyHeader, c.Key)
	}
	if req.Header.Get("User-Agent") == "" {
		req.Header.Set("User-Agent", UserAgent)
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

// unfinished is the Error of an attempt whose reply's status came
// through the proxy but whose body did not arrive whole: the same words
// whether the client or the proxy gave up first at the timeout, else
// what failed.
func unfinished(rep faults.Report, timedOut bool, failure string, timeout time.Duration) string {
	if timedOut {
		return fmt.Sprintf("%s: the target sent status %d, and its body had not ended after %s", harness.ReplyUnfinished, rep.UpstreamStatus, timeout)
	}
	return fmt.Sprintf("%s: the target sent status %d, then %s", harness.ReplyUnfinished, rep.UpstreamStatus, failure)
}

func describe(ctx context.Context, err error, timeout time.Duration) string {
	if timedOut(ctx, err) {
		return fmt.Sprintf("no reply within %s (the client gave up)", timeout)
	}
	return err.Error()
}

// timedOut says whether a call under ctx ended with err because its
// deadline passed. The client puts ctx's deadline on the connection too,
// and the connection's timer may fire before the context's: an i/o timeout
// once the deadline has passed is the same giving up.
func timedOut(ctx context.Context, err error) bool {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return true
	}
	dl, ok := ctx.Deadline()
	return ok && errors.Is(err, os.ErrDeadlineExceeded) && !time.Now().Before(dl)
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
	return harness.JSONPath(doc, l.JSON)
}

// capabilities are the conventions an HTTP API is held to: an
// idempotency-key header, an effect field in replies, dry runs.
func capabilities() *harness.Capabilities {
	return &harness.Capabilities{Keys: true, EffectField: true, DryRun: true}
}
