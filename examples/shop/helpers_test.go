package shop_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/examples/shop"
)

// wait bounds every wait on an event; it is a deadline, never a delay.
const wait = 10 * time.Second

// testShop is a running shop and a client for it.
type testShop struct {
	url    string
	client *http.Client
	// stop shuts the shop down and waits for Serve to return; it is safe
	// to call more than once, and runs at cleanup at the latest.
	stop func()
}

// mustStartShop serves a shop with profile against pay until the test ends,
// with its key store in a fresh state directory (as the harness runs it),
// and checks at cleanup that it shut down cleanly.
func mustStartShop(t testing.TB, profile string, pay *payments) *testShop {
	t.Helper()
	return mustServe(t, shop.Options{Profile: profile, StateDir: t.TempDir()}, pay)
}

// mustServe serves a shop with opts against pay (opts.PaymentsURL and
// opts.Listen are filled in) until stop or the end of the test.
func mustServe(t testing.TB, opts shop.Options, pay *payments) *testShop {
	t.Helper()
	opts.Listen = "127.0.0.1:0"
	opts.PaymentsURL = pay.URL()
	ctx, cancel := context.WithCancel(context.Background())
	addrs := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- shop.Serve(ctx, opts, func(addr string) { addrs <- addr })
	}()
	s := &testShop{client: &http.Client{Timeout: wait}}
	select {
	case addr := <-addrs:
		s.url = "http://" + addr
	case err := <-done:
		cancel()
		t.Fatalf("Serve(%s) returned before ready: %v", opts.Profile, err)
	case <-time.After(wait):
		cancel()
		t.Fatalf("Serve(%s) not ready after %v", opts.Profile, wait)
	}
	var once sync.Once
	s.stop = func() {
		once.Do(func() {
			s.client.CloseIdleConnections()
			cancel()
			select {
			case err := <-done:
				assert.NoError(t, err, "Serve should return nil after cancel")
			case <-time.After(2 * wait):
				t.Errorf("Serve(%s) did not return after cancel", opts.Profile)
			}
		})
	}
	t.Cleanup(s.stop)
	return s
}

// result is one reply of the shop.
type result struct {
	Status int
	Header http.Header
	Raw    string
	// Fields is the top level of the JSON body, to tell an absent effect
	// field from an empty one.
	Fields map[string]json.RawMessage
	OK     bool           `json:"ok"`
	Error  string         `json:"error"`
	Data   map[string]any `json:"data"`
}

// Effect returns the effect field and whether it was present at all.
func (r result) Effect() (string, bool) {
	raw, ok := r.Fields["effect"]
	if !ok {
		return "", false
	}
	var s string
	_ = json.Unmarshal(raw, &s)
	return s, true
}

// ID is data.id.
func (r result) ID() string {
	id, _ := r.Data["id"].(string)
	return id
}

func (r result) String() string { return fmt.Sprintf("HTTP %d %s", r.Status, r.Raw) }

// do sends one request; it is safe to call from any goroutine.
func (s *testShop) do(method, path, key string, body any) (result, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return result{}, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, s.url+path, rd)
	if err != nil {
		return result{}, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return result{}, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return result{}, err
	}
	r := result{Status: resp.StatusCode, Header: resp.Header, Raw: string(bytes.TrimSpace(raw))}
	if err := json.Unmarshal(raw, &r.Fields); err != nil {
		return r, fmt.Errorf("%s %s: reply is not a JSON object: %v: %s", method, path, err, raw)
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return r, fmt.Errorf("%s %s: %v: %s", method, path, err, raw)
	}
	return r, nil
}

// post sends a POST and fails the test on transport errors.
func (s *testShop) post(t *testing.T, path, key string, body any) result {
	t.Helper()
	r, err := s.do(http.MethodPost, path, key, body)
	require.NoError(t, err)
	return r
}

// get sends a GET and fails the test on transport errors.
func (s *testShop) get(t *testing.T, path string) result {
	t.Helper()
	r, err := s.do(http.MethodGet, path, "", nil)
	require.NoError(t, err)
	return r
}

// postAsync sends a POST from another goroutine.
func (s *testShop) postAsync(path, key string, body any) <-chan result {
	out := make(chan result, 1)
	go func() {
		r, err := s.do(http.MethodPost, path, key, body)
		if err != nil {
			r = result{Status: -1, Raw: err.Error()}
		}
		out <- r
	}()
	return out
}

// mustReceive waits for one value or fails the test at the deadline.
func mustReceive[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(wait):
		t.Fatalf("timed out after %v waiting for %s", wait, what)
		panic("unreachable")
	}
}

// order builds an order body.
func order(customer string, amount int, memo string) map[string]any {
	return map[string]any{"customer": customer, "amount": amount, "memo": memo}
}
