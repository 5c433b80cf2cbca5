package payments_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/fakes/payments"
)

// waitLimit bounds every wait in these tests; it is a deadline for a
// deadlock, not a timing assertion.
const waitLimit = 10 * time.Second

const (
	formType = "application/x-www-form-urlencoded"
	jsonType = "application/json"
)

// Markers used across tests, in the format fakes.NewMarker makes.
const (
	markerA = "idem-00000000000000aa"
	markerB = "idem-00000000000000bb"
)

// result is what a client saw.
type result struct {
	status int
	header http.Header
	body   []byte
	err    error
}

// replayed reports whether the server marked the reply as a replay.
func (r result) replayed() bool { return r.header.Get("Idempotent-Replayed") == "true" }

// newClient returns a client of its own, so that connection reuse in one
// test does not leak into another.
func newClient(t testing.TB) *http.Client {
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: waitLimit}
}

// form encodes name, value pairs.
func form(kv ...string) string {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Add(kv[i], kv[i+1])
	}
	return v.Encode()
}

// send does one request; it needs no *testing.T so that goroutines can use
// it. hdr holds header name, value pairs.
func send(ctx context.Context, c *http.Client, method, u, contentType, body string, hdr ...string) result {
	req, err := http.NewRequestWithContext(ctx, method, u, strings.NewReader(body))
	if err != nil {
		return result{err: err}
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Add(hdr[i], hdr[i+1])
	}
	resp, err := c.Do(req)
	if err != nil {
		return result{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return result{status: resp.StatusCode, header: resp.Header, body: b, err: err}
}

// post sends a POST /v1/charges and requires that a reply came back.
func post(t testing.TB, c *http.Client, s *payments.Server, contentType, body string, hdr ...string) result {
	t.Helper()
	r := send(context.Background(), c, http.MethodPost, s.URL()+"/v1/charges", contentType, body, hdr...)
	require.NoError(t, r.err)
	return r
}

// get sends a GET and requires that a reply came back.
func get(t testing.TB, c *http.Client, u string) result {
	t.Helper()
	r := send(context.Background(), c, http.MethodGet, u, "", "")
	require.NoError(t, r.err)
	return r
}

// chargeOf decodes a charge reply.
func chargeOf(t testing.TB, r result) payments.Charge {
	t.Helper()
	require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
	var c payments.Charge
	require.NoError(t, json.Unmarshal(r.body, &c), "body: %s", r.body)
	return c
}

// stripeError is the body of an error reply.
type stripeError struct {
	Error struct {
		Type    string `json:"type"`
		Code    string `json:"code"`
		Message string `json:"message"`
		Param   string `json:"param"`
	} `json:"error"`
}

// errorOf requires an error reply with status and decodes it.
func errorOf(t testing.TB, r result, status int) stripeError {
	t.Helper()
	require.Equal(t, status, r.status, "body: %s", r.body)
	require.Equal(t, "application/json", r.header.Get("Content-Type"))
	var e stripeError
	require.NoError(t, json.Unmarshal(r.body, &e), "body: %s", r.body)
	require.NotEmpty(t, e.Error.Type, "body: %s", r.body)
	require.NotEmpty(t, e.Error.Message, "body: %s", r.body)
	return e
}

// recv waits for a value from ch, failing the test after waitLimit.
func recv[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(waitLimit):
		t.Fatalf("timed out after %s waiting for %s", waitLimit, what)
		var zero T
		return zero
	}
}

// hold blocks the first effect recorded in a ledger inside its observer,
// that is after the charge and before the reply, until release.
type hold struct {
	entered chan struct{} // closed once the first effect is held
	release func()
}

// holdFirstEffect installs a hold on l. Call it after Start, so that the
// cleanup that releases the hold runs before the one that closes the server.
func holdFirstEffect(t testing.TB, l *fakes.Ledger) *hold {
	h := &hold{entered: make(chan struct{})}
	released := make(chan struct{})
	var first, rel sync.Once
	h.release = func() { rel.Do(func() { close(released) }) }
	cancel := l.Observe(func(fakes.Effect) {
		isFirst := false
		first.Do(func() { isFirst = true; close(h.entered) })
		if isFirst {
			<-released
		}
	})
	t.Cleanup(func() { h.release(); cancel() })
	return h
}
