package container

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Readiness is polled with a backoff from firstPoll doubling up to maxPoll,
// as targets/process does: quick for servers that start in milliseconds.
const (
	firstPoll = 5 * time.Millisecond
	maxPoll   = 100 * time.Millisecond
)

var errNotReady = errors.New("ready timeout")

type exit struct {
	code int
	err  error
}

// awaitReady waits until GET readyURL answers 2xx. It fails at
// once if the container exits meanwhile, and after readyTimeout if it is
// still not ready; the caller stops or removes the container.
func (in *instance) awaitReady(ctx context.Context) error {
	timeout := in.spec.readyTimeout
	pctx, cancel := context.WithTimeoutCause(ctx, timeout, errNotReady)
	// The engine says when the container stops: no polling of its state.
	exited := make(chan exit, 1)
	waiting := true
	go func() {
		code, err := in.pool.Client.WaitContainerWithContext(in.id, pctx)
		exited <- exit{code, err}
	}()
	defer func() {
		cancel()
		if waiting {
			<-exited // nothing outlives the wait
		}
	}()

	tr := &http.Transport{DisableKeepAlives: true, Proxy: nil}
	defer tr.CloseIdleConnections()
	client := &http.Client{
		Transport:     tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	probe := func() error {
		req, err := http.NewRequestWithContext(pctx, http.MethodGet, in.spec.readyURL, nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		_ = resp.Body.Close()
		// Only a 2xx means ready: a 503 while warming up or a wrong
		// path's 404 is an answer, not readiness.
		if resp.StatusCode < 200 || resp.StatusCode > 299 {
			return fmt.Errorf("GET %s answered %d %s, not a 2xx", in.spec.readyURL, resp.StatusCode, http.StatusText(resp.StatusCode))
		}
		return nil
	}
	want := fmt.Sprintf("a 2xx reply to GET %s within %v", in.spec.readyURL, timeout)

	delay := firstPoll
	timer := time.NewTimer(delay)
	defer timer.Stop()
	var last error
	for {
		err := probe()
		if err == nil {
			return nil
		}
		if last == nil || pctx.Err() == nil {
			last = err // the last error about the server, not about giving up
		}
		timer.Reset(delay)
		select {
		case x := <-exited:
			waiting = false
			exited = nil // a nil channel: this case is done
			if x.err == nil {
				return in.failure(ctx, fmt.Sprintf("exited before it was ready (exit code %d)", x.code), want,
					"read its output above; to reproduce, run: "+in.spec.dockerRun())
			}
			// The wait itself failed (or was cancelled): rely on the probe
			// and the deadline.
		case <-pctx.Done():
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("container %q: start abandoned before it was ready: %w", in.spec.target, err)
			}
			return in.failure(ctx, fmt.Sprintf("not ready after %v: %v", timeout, last), want,
				"check that it listens on 127.0.0.1:{{port}} and answers ReadyPath, or raise ReadyTimeout; "+
					"the container uses the host's network, so the Docker engine must run on this machine (not Docker Desktop's VM or a remote DOCKER_HOST)")
		case <-timer.C:
		}
		delay = min(2*delay, maxPoll)
	}
}

// dockerRun is the command that runs the container by hand as idemcheck
// ran it: its user, environment, image and command, each quoted for a
// POSIX shell where it needs to be (its state directory, gone with the
// run, is left out).
func (s runSpec) dockerRun() string {
	parts := []string{"docker", "run", "--rm", "--network", "host"}
	if s.user != "" {
		parts = append(parts, "--user", shellQuote(s.user))
	}
	for _, kv := range s.env {
		parts = append(parts, "-e", shellQuote(kv))
	}
	parts = append(parts, shellQuote(s.image))
	for _, a := range s.cmd {
		parts = append(parts, shellQuote(a))
	}
	return strings.Join(parts, " ")
}

// shellQuote quotes s for a POSIX shell when it holds anything but
// letters, digits and -_./:=@,+%: a single-quoted word, in which each
// single quote ends the word, is escaped, and starts it again.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@,+%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
