package process

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// Readiness is polled every firstPoll for the first quickPolls, then with
// a backoff doubling up to maxPoll: quick for servers that start in
// milliseconds (a restart, from a crash fault or a trial's restart step,
// waits at most a millisecond longer than the server took), cheap for a
// slow one (a poll of a server not yet listening is refused at once).
const (
	firstPoll  = time.Millisecond
	quickPolls = 100 * time.Millisecond
	maxPoll    = 10 * time.Millisecond
)

// errNotReady is the cause of the readiness context when Ready.Timeout passes.
var errNotReady = errors.New("ready timeout")

// prober checks readiness once; nil means ready.
type prober struct {
	check func(ctx context.Context) error // nil: ready once started
	want  string                          // for messages
	close func()
}

func newProber(r Ready) prober {
	switch {
	case r.URL != "":
		// A private transport: no proxy, no connection reuse, nothing left
		// running once the probe is done.
		tr := &http.Transport{DisableKeepAlives: true, Proxy: nil, DialContext: dialLoopback}
		client := &http.Client{
			Transport: tr,
			CheckRedirect: func(*http.Request, []*http.Request) error {
				return http.ErrUseLastResponse
			},
		}
		return prober{
			check: func(ctx context.Context) error {
				req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.URL, nil)
				if err != nil {
					return err
				}
				resp, err := client.Do(req)
				if err != nil {
					return err
				}
				// A short read lets the connection close cleanly; what the
				// body says does not matter, only the status.
				_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
				_ = resp.Body.Close()
				return readyStatus(r.URL, resp.StatusCode)
			},
			want:  fmt.Sprintf("a 2xx reply to GET %s within %v", r.URL, r.timeout()),
			close: tr.CloseIdleConnections,
		}
	case r.Addr != "":
		return prober{
			check: func(ctx context.Context) error {
				c, err := dialLoopback(ctx, "tcp", r.Addr)
				if err != nil {
					return err
				}
				return c.Close()
			},
			want:  fmt.Sprintf("a TCP listener on %s within %v", r.Addr, r.timeout()),
			close: func() {},
		}
	default:
		return prober{want: "it to keep running", close: func() {}}
	}
}

// readyStatus says whether an HTTP status means ready: only a 2xx does. A
// 503 from a server still warming up, a 404 from a wrong path or a
// redirect to a login page are answers, not readiness.
func readyStatus(url string, code int) error {
	if code >= 200 && code <= 299 {
		return nil
	}
	return fmt.Errorf("GET %s answered %d %s, not a 2xx", url, code, http.StatusText(code))
}

// awaitReady waits until in is ready. On any failure it kills in, waits for
// its group to be gone and returns a *StartError, or the ctx error wrapped.
func (p *Process) awaitReady(ctx context.Context, in *incarnation) error {
	pr := newProber(p.spec.Ready)
	defer pr.close()
	if pr.check == nil {
		return nil
	}
	timeout := p.spec.Ready.timeout()
	pctx, cancel := context.WithTimeoutCause(ctx, timeout, errNotReady)
	defer cancel()
	// Abort a probe in flight as soon as the process exits.
	go func() {
		select {
		case <-in.done:
			cancel()
		case <-pctx.Done():
		}
	}()

	started := time.Now()
	delay := firstPoll
	timer := time.NewTimer(delay)
	defer timer.Stop()
	var last error
	for {
		err := pr.check(pctx)
		if err == nil {
			return nil
		}
		if last == nil || pctx.Err() == nil {
			last = err // keep the last error that is about the server, not about us giving up
		}
		timer.Reset(delay)
		select {
		case <-in.done:
			return p.exitedBeforeReady(in, pr.want)
		case <-pctx.Done():
			select {
			case <-in.done:
				return p.exitedBeforeReady(in, pr.want)
			default:
			}
			_ = in.kill()
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("process %q: start abandoned before it was ready: %w%s", p.name, err, outputSoFar(p.Output()))
			}
			return &StartError{
				Name:     p.name,
				Reason:   fmt.Sprintf(reasonNotReady, timeout, last),
				ExitCode: -1,
				Output:   p.Output(),
				status:   "it was still running and has been killed",
				want:     pr.want,
				hint:     "check that it listens at the target's url (host, port) and answers start.ready.path, or raise start.ready.timeout if it is just slow",
			}
		case <-timer.C:
		}
		if time.Since(started) > quickPolls {
			delay = min(2*delay, maxPoll)
		}
	}
}

// exitedBeforeReady builds the error for an incarnation that exited while
// starting; in.done is closed.
func (p *Process) exitedBeforeReady(in *incarnation, want string) error {
	in.account() // this error is the report; Stop need not repeat it
	code, status := in.exitStatus()
	return &StartError{
		Name:     p.name,
		Reason:   reasonExited,
		ExitCode: code,
		Output:   p.Output(),
		status:   status,
		want:     want,
		hint:     "read its output above; run the command by hand with the same environment and directory to reproduce",
	}
}

// dialLoopback dials addr, taking the name "localhost" for 127.0.0.1
// rather than asking a resolver: readiness is checked on loopback only,
// and a resolver (or a hosts file) could send it anywhere.
func dialLoopback(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, network, loopbackAddr(addr))
}

// loopbackAddr writes a "localhost" host of addr as 127.0.0.1.
func loopbackAddr(addr string) string {
	if host, port, err := net.SplitHostPort(addr); err == nil && strings.EqualFold(host, "localhost") {
		return net.JoinHostPort("127.0.0.1", port)
	}
	return addr
}

// outputSoFar is what a process abandoned while starting has printed,
// its last lines laid out as a StartError's, to follow an error: why it
// was not ready yet is often there.
func outputSoFar(out string) string {
	lines := lastLines(out, outputLines)
	if lines == "" {
		return ""
	}
	return "; last output so far:\n" + quoted(lines)
}
