package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	nethttp "net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/internal/oncehttp"
	"github.com/idemcheck/idemcheck/targets/process"
)

// exitGrace is how long a stdio server has to exit once its input ends
// before its process group is SIGKILLed.
const exitGrace = 2 * time.Second

// session is one MCP session: over stdio its own server process, over
// HTTP one Mcp-Session-Id, in process one server session.
type session struct {
	cs    *sdk.ClientSession
	relay *relay     // stdio and in-process
	proc  *stdioProc // stdio
	ss    *sdk.ServerSession
	dead  chan struct{} // closed once the session's transport has ended
	once  sync.Once
	// name is what the record calls it: "session N", N counting the
	// target's sessions from 1.
	name string
}

// alive reports whether the session can still carry calls.
func (s *session) alive() bool {
	select {
	case <-s.dead:
		return false
	default:
		return true
	}
}

// close ends the session and, over stdio, its server process: its input
// ends, it has exitGrace to go, then its group is killed. It returns once
// the process is reaped.
func (s *session) close() {
	s.once.Do(func() {
		if s.cs != nil {
			_ = s.cs.Close()
		}
		if s.ss != nil {
			_ = s.ss.Close()
		}
		if s.proc != nil {
			select {
			case <-s.proc.done:
			case <-time.After(exitGrace):
				s.proc.kill()
				<-s.proc.done
			}
		}
	})
}

// stdioProc is one stdio server process, leader of its own group.
type stdioProc struct {
	pid    int
	done   chan struct{} // closed once it is reaped and its group gone
	stderr *tailBuffer

	mu     sync.Mutex
	exited bool
	killed bool
}

// kill SIGKILLs the process group, unless the leader was reaped (its pid
// may then belong to someone else).
func (p *stdioProc) kill() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.exited {
		return
	}
	p.killed = true
	_ = syscall.Kill(-p.pid, syscall.SIGKILL)
}

// startProc starts the stdio server with its pipes: stdin and stdout are
// real OS pipes (the server sees what it would under any MCP host),
// stderr is kept for evidence.
func (t *Target) startProc() (*stdioProc, *os.File, *os.File, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, nil, nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, nil, nil, err
	}
	stderr := &tailBuffer{max: 4096}
	cmd := &exec.Cmd{
		Path:   t.path,
		Args:   t.cfg.Command,
		Env:    t.env,
		Dir:    t.cfg.Dir,
		Stdin:  inR,
		Stdout: outW,
		Stderr: stderr,
		SysProcAttr: &syscall.SysProcAttr{
			Setpgid:   true,            // its own group: a kill reaches its children
			Pdeathsig: syscall.SIGKILL, // dies with the harness
		},
		WaitDelay: time.Second,
	}
	err = cmd.Start()
	inR.Close() // the child has its own copies
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, nil, nil, fmt.Errorf("cannot start %s: %w", t.cfg.Command[0], err)
	}
	p := &stdioProc{pid: cmd.Process.Pid, done: make(chan struct{}), stderr: stderr}
	go func() {
		waitErr := process.WaitExited(p.pid)
		p.mu.Lock()
		if waitErr == nil {
			_ = syscall.Kill(-p.pid, syscall.SIGKILL) // nothing it started outlives it
		}
		p.exited = true
		p.mu.Unlock()
		_ = cmd.Wait()
		if waitErr == nil {
			process.WaitGroupGone(p.pid)
		}
		close(p.done)
	}()
	return p, inW, outR, nil
}

// handshakeTimeout is the least time a new session gets to start and
// complete the MCP handshake; a server that exits fails at once.
const handshakeTimeout = 30 * time.Second

// connect opens a new session: over stdio a new server process.
func (t *Target) connect(ctx context.Context) (*session, error) {
	t.mu.Lock()
	closed := t.closed
	t.mu.Unlock()
	if closed {
		return nil, errors.New("the target is closed")
	}
	// A new session starts a process over stdio: on a loaded machine that
	// and the handshake can take longer than one call may.
	ctx, cancel := context.WithTimeout(ctx, max(t.cfg.Timeout, handshakeTimeout))
	defer cancel()
	s := &session{dead: make(chan struct{}), name: fmt.Sprintf("session %d", t.sessions.Add(1))}
	t.track(s) // from now on Kill finds its process
	var tr sdk.Transport
	switch {
	case t.proxy != nil:
		tr = &sdk.StreamableClientTransport{
			Endpoint:             t.endpoint,
			HTTPClient:           &nethttp.Client{Transport: attemptTransport{base: t.httpTransport}},
			DisableStandaloneSSE: true, // nothing here needs server-initiated messages
			MaxRetries:           -1,   // a lost stream is a finding, not something to hide
		}
	default:
		c2rR, c2rW := io.Pipe() // client → relay
		r2cR, r2cW := io.Pipe() // relay → client
		var toServer io.WriteCloser
		var fromServer io.Reader
		if t.cfg.Server != nil {
			r2sR, r2sW := io.Pipe()
			s2rR, s2rW := io.Pipe()
			ss, err := t.cfg.Server.Connect(ctx, &sdk.IOTransport{Reader: r2sR, Writer: s2rW}, nil)
			if err != nil {
				return nil, fmt.Errorf("in-process server: %w", err)
			}
			s.ss = ss
			toServer, fromServer = r2sW, s2rR
			go func() {
				_ = ss.Wait()
				_ = s2rW.Close()
			}()
		} else {
			p, stdin, stdout, err := t.startProc()
			if err != nil {
				return nil, err
			}
			s.proc = p
			toServer, fromServer = stdin, stdout
		}
		s.relay = newRelay(c2rR, r2cW, toServer, fromServer, t.cfg.Timeout+5*time.Second)
		tr = &sdk.IOTransport{Reader: r2cR, Writer: c2rW}
	}
	cs, err := t.client.Connect(ctx, tr, nil)
	if err != nil {
		t.untrack(s)
		if s.proc != nil {
			s.proc.kill()
			<-s.proc.done
			return nil, fmt.Errorf("the server did not complete the MCP handshake: %v%s", err, stderrHint(s.proc.stderr.String()))
		}
		if s.ss != nil {
			_ = s.ss.Close()
		}
		return nil, fmt.Errorf("the server did not complete the MCP handshake: %w%s", err, oncehttp.TLSHint(err.Error()))
	}
	s.cs = cs
	go func() {
		_ = cs.Wait()
		close(s.dead)
	}()
	return s, nil
}

func (t *Target) track(s *session) {
	t.mu.Lock()
	t.open[s] = struct{}{}
	t.mu.Unlock()
}

func (t *Target) untrack(s *session) {
	t.mu.Lock()
	delete(t.open, s)
	t.mu.Unlock()
}

// drop closes a session and forgets it.
func (t *Target) drop(s *session) {
	s.close()
	t.untrack(s)
	t.mu.Lock()
	if t.main == s {
		t.main = nil
	}
	t.mu.Unlock()
}

// session returns the session calls go on, opening a new one when there is
// none or the last one died: the reconnect a client makes.
func (t *Target) session(ctx context.Context) (*session, error) {
	t.connMu.Lock()
	defer t.connMu.Unlock()
	t.mu.Lock()
	s := t.main
	t.mu.Unlock()
	if s != nil && s.alive() {
		return s, nil
	}
	if s != nil {
		t.drop(s)
	}
	s, err := t.connect(ctx)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	t.main = s
	t.mu.Unlock()
	return s, nil
}

type attemptKey struct{}

// attemptTransport puts the attempt id of the call in progress (from the
// request's context) in faults.AttemptHeader, for the fault proxy.
type attemptTransport struct{ base nethttp.RoundTripper }

func (a attemptTransport) RoundTrip(r *nethttp.Request) (*nethttp.Response, error) {
	id, _ := r.Context().Value(attemptKey{}).(string)
	if id != "" {
		r = r.Clone(r.Context())
		r.Header.Set(faults.AttemptHeader, id)
	}
	resp, err := a.base.RoundTrip(r)
	if err != nil || id != "" || resp.Header.Get(faults.ProxyErrorHeader) == "" {
		return resp, err
	}
	// Outside an attempt (the session's handshake, a listing), the
	// proxy's own failure to reach the server is the error, in its words
	// (nothing answers, the certificate does not verify), not the SDK's
	// "Bad Gateway".
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 2048))
	return nil, errors.New(strings.TrimSpace(string(msg)))
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if len(b.buf) > 2*b.max {
		b.buf = append(b.buf[:0], b.buf[len(b.buf)-b.max:]...)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.buf) > b.max {
		return "…" + string(b.buf[len(b.buf)-b.max:])
	}
	return string(b.buf)
}
