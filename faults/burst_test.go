package faults_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/internal/memnet"
)

// burstWait bounds every wait on an event in the burst tests: a deadline
// for a hang, not a timing assertion.
const burstWait = 10 * time.Second

// burstOrder is the JSON body every burst test sends.
const burstOrder = `{"customer":"cus_7","amount":1200,"currency":"eur"}`

// entry is one request as a burst target's handler saw it on entry.
type entry struct {
	At     time.Time
	Key    string
	Method string
	Path   string
	Body   string
	Close  bool // the client asked for Connection: close
	Length int64
}

// burstTarget is an httptest server that records every handler entry,
// then runs then (nil: answer 201 with the entry's sequence number).
type burstTarget struct {
	srv *httptest.Server
	// entered receives a value as each handler starts (buffered).
	entered chan struct{}

	mu      sync.Mutex
	entries []entry
}

func newBurstTarget(tb testing.TB, then http.HandlerFunc) *burstTarget {
	tb.Helper()
	bt := &burstTarget{entered: make(chan struct{}, 1024)}
	bt.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		at := time.Now()
		body, _ := io.ReadAll(r.Body)
		bt.mu.Lock()
		seq := len(bt.entries)
		bt.entries = append(bt.entries, entry{
			At: at, Key: r.Header.Get("Idempotency-Key"), Method: r.Method, Path: r.URL.Path,
			Body: string(body), Close: r.Close, Length: r.ContentLength,
		})
		bt.mu.Unlock()
		select {
		case bt.entered <- struct{}{}:
		default:
		}
		if then != nil {
			then(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_, _ = fmt.Fprintf(w, `{"effect":"created","data":{"seq":%d}}`, seq)
	}))
	tb.Cleanup(bt.srv.Close)
	return bt
}

// seen returns the entries recorded so far.
func (bt *burstTarget) seen() []entry {
	bt.mu.Lock()
	defer bt.mu.Unlock()
	return slices.Clone(bt.entries)
}

// newOrder returns the POST every burst test sends, with key.
func newOrder(tb testing.TB, url, key string) *http.Request {
	tb.Helper()
	req, err := http.NewRequest(http.MethodPost, url+"/orders", strings.NewReader(burstOrder))
	require.NoError(tb, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", key)
	return req
}

// fire runs b.Fire in a goroutine and waits for it, failing the test if
// it does not return within burstWait.
func fire(tb testing.TB, ctx context.Context, b faults.Burst, req *http.Request) ([]faults.BurstReply, error) {
	tb.Helper()
	type result struct {
		replies []faults.BurstReply
		err     error
	}
	done := make(chan result, 1)
	go func() {
		r, err := b.Fire(ctx, req)
		done <- result{r, err}
	}()
	select {
	case r := <-done:
		return r.replies, r.err
	case <-time.After(burstWait):
		tb.Fatalf("Fire did not return within %v", burstWait)
		return nil, nil
	}
}

// awaitEntries waits until n handlers have been entered.
func awaitEntries(tb testing.TB, bt *burstTarget, n int) {
	tb.Helper()
	limit := time.After(burstWait)
	for range n {
		select {
		case <-bt.entered:
		case <-limit:
			tb.Fatalf("only %d of %d handlers entered within %v", len(bt.seen()), n, burstWait)
		}
	}
}

// rawServer accepts connections and hands each to handle, closing it
// after; its cleanup closes the listener and waits for every handler.
func rawServer(tb testing.TB, handle func(c net.Conn)) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(tb, err)
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer c.Close()
				_ = c.SetDeadline(time.Now().Add(burstWait))
				handle(c)
			})
		}
	})
	tb.Cleanup(func() {
		_ = ln.Close()
		wg.Wait()
	})
	return "http://" + ln.Addr().String()
}

func TestBurstDeliversIdenticalCopiesAndEveryReplyInOrder(t *testing.T) {
	for _, mode := range []faults.BurstMode{faults.Synchronized, faults.Naive} {
		t.Run(string(mode), func(t *testing.T) {
			bt := newBurstTarget(t, nil)
			req := newOrder(t, bt.srv.URL, "key-"+string(mode))
			replies, err := fire(t, context.Background(), faults.Burst{N: 20, Mode: mode, Timeout: burstWait}, req)
			require.NoError(t, err)
			require.Len(t, replies, 20)

			seqs := map[int]bool{}
			for i, r := range replies {
				require.NoError(t, r.Err, "copy %d", i)
				assert.Equal(t, http.StatusCreated, r.Status, "copy %d", i)
				assert.Equal(t, "application/json", r.Header.Get("Content-Type"), "copy %d", i)
				var body struct {
					Effect string `json:"effect"`
					Data   struct {
						Seq int `json:"seq"`
					} `json:"data"`
				}
				require.NoError(t, json.Unmarshal(r.Body, &body), "copy %d: %s", i, r.Body)
				assert.Equal(t, "created", body.Effect)
				seqs[body.Data.Seq] = true
				assert.False(t, r.Sent.IsZero(), "copy %d: Sent", i)
				assert.False(t, r.Received.Before(r.Sent), "copy %d: received %v before sent %v", i, r.Received, r.Sent)
				// No order between copies is asserted: the release is shared
				// by several writers, so copies go out together, in any order.
			}
			assert.Len(t, seqs, 20, "every reply is a distinct handler's")

			entries := bt.seen()
			require.Len(t, entries, 20)
			for _, e := range entries {
				assert.Equal(t, "key-"+string(mode), e.Key)
				assert.Equal(t, http.MethodPost, e.Method)
				assert.Equal(t, "/orders", e.Path)
				assert.Equal(t, burstOrder, e.Body)
				assert.Equal(t, int64(len(burstOrder)), e.Length)
				assert.False(t, e.Close, "written without Connection: close: Fire closes first")
			}

			// The request is not consumed: GetBody gave Fire its own copy.
			b, err := io.ReadAll(req.Body)
			require.NoError(t, err)
			assert.Equal(t, burstOrder, string(b))
		})
	}
}

func TestBurstZeroValueSendsTheDefaultNumberOfCopies(t *testing.T) {
	bt := newBurstTarget(t, nil)
	replies, err := fire(t, context.Background(), faults.Burst{}, newOrder(t, bt.srv.URL, "k"))
	require.NoError(t, err)
	assert.Len(t, replies, faults.DefaultBurstN)
	assert.Len(t, bt.seen(), faults.DefaultBurstN)
}

func TestBurstReadsABodyWithoutGetBodyOnceAndSendsItToEveryCopy(t *testing.T) {
	// Bodies larger than what the release loop writes inline are finished
	// per connection after the release; every copy still gets all of it.
	for name, size := range map[string]int{"small": 10, "large": 300 << 10} {
		t.Run(name, func(t *testing.T) {
			bt := newBurstTarget(t, nil)
			payload := bytes.Repeat([]byte("x"), size)
			req, err := http.NewRequest(http.MethodPut, bt.srv.URL+"/blobs/1", nil)
			require.NoError(t, err)
			req.Body = io.NopCloser(bytes.NewReader(payload)) // no GetBody, no length
			req.Header.Set("Idempotency-Key", "k")
			replies, err := fire(t, context.Background(), faults.Burst{N: 5, Timeout: burstWait}, req)
			require.NoError(t, err)
			for i, r := range replies {
				require.NoError(t, r.Err, "copy %d", i)
				assert.Equal(t, http.StatusCreated, r.Status)
			}
			entries := bt.seen()
			require.Len(t, entries, 5)
			for _, e := range entries {
				assert.Equal(t, http.MethodPut, e.Method)
				assert.Equal(t, string(payload), e.Body)
				assert.Equal(t, int64(size), e.Length)
			}
		})
	}
}

func TestBurstSendsARequestWithoutABody(t *testing.T) {
	bt := newBurstTarget(t, nil)
	req, err := http.NewRequest(http.MethodGet, bt.srv.URL+"/orders/ord_1?expand=items", nil)
	require.NoError(t, err)
	req.Header.Set("Idempotency-Key", "k")
	replies, err := fire(t, context.Background(), faults.Burst{N: 3, Timeout: burstWait}, req)
	require.NoError(t, err)
	for _, r := range replies {
		require.NoError(t, r.Err)
	}
	for _, e := range bt.seen() {
		assert.Equal(t, http.MethodGet, e.Method)
		assert.Equal(t, "/orders/ord_1", e.Path)
		assert.Empty(t, e.Body)
		assert.Zero(t, e.Length)
	}
}

func TestBurstCapsEachReplyBody(t *testing.T) {
	bt := newBurstTarget(t, func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write(bytes.Repeat([]byte("y"), faults.MaxBurstReplyBody+4096))
	})
	replies, err := fire(t, context.Background(), faults.Burst{N: 2, Timeout: burstWait}, newOrder(t, bt.srv.URL, "k"))
	require.NoError(t, err)
	for _, r := range replies {
		require.NoError(t, r.Err)
		assert.Len(t, r.Body, faults.MaxBurstReplyBody)
	}
}

func TestBurstSkipsInformationalReplies(t *testing.T) {
	url := rawServer(t, func(c net.Conn) {
		if _, err := http.ReadRequest(bufio.NewReader(c)); err != nil {
			return
		}
		_, _ = io.WriteString(c, "HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n"+
			"HTTP/1.1 409 Conflict\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")
	})
	replies, err := fire(t, context.Background(), faults.Burst{N: 3, Timeout: burstWait}, newOrder(t, url, "k"))
	require.NoError(t, err)
	for _, r := range replies {
		require.NoError(t, r.Err)
		assert.Equal(t, http.StatusConflict, r.Status)
		assert.Equal(t, "{}", string(r.Body))
	}
}

func TestBurstRejectsBadInput(t *testing.T) {
	bt := newBurstTarget(t, nil)
	good := func() *http.Request { return newOrder(t, bt.srv.URL, "k") }
	ftp := good()
	ftp.URL.Scheme = "ftp"
	noHost := good()
	noHost.URL.Host = ""
	noURL := good()
	noURL.URL = nil
	for _, tc := range []struct {
		why  string
		b    faults.Burst
		req  *http.Request
		want string
	}{
		{"there is nothing to send", faults.Burst{}, nil, "got nil"},
		{"only HTTP, in the clear or over TLS", faults.Burst{}, ftp, "http:// or https:// URL"},
		{"the address comes from the URL", faults.Burst{}, noHost, "http:// or https:// URL"},
		{"a request needs a URL", faults.Burst{}, noURL, "URL"},
		{"a negative count is a mistake, not the default", faults.Burst{N: -1}, good(), "N must be positive"},
		{"a misspelt mode must not fall back silently", faults.Burst{Mode: "synchronised"}, good(), "unknown mode"},
		{"a negative timeout is a mistake", faults.Burst{Timeout: -time.Second}, good(), "Timeout must be positive"},
	} {
		t.Run(tc.why, func(t *testing.T) {
			replies, err := tc.b.Fire(context.Background(), tc.req)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Nil(t, replies)
		})
	}
	assert.Empty(t, bt.seen(), "nothing is sent on bad input")
}

func TestBurstNothingListeningIsAnError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	url := "http://" + ln.Addr().String()
	require.NoError(t, ln.Close())
	for _, mode := range []faults.BurstMode{faults.Synchronized, faults.Naive} {
		replies, err := fire(t, context.Background(), faults.Burst{N: 3, Mode: mode, Timeout: burstWait}, newOrder(t, url, "k"))
		require.Error(t, err, mode)
		assert.Contains(t, err.Error(), "could not open a single connection")
		assert.Nil(t, replies)
	}
}

func TestBurstServerThatMisbehavesGivesPerReplyErrors(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, tc := range []struct {
		why    string
		handle func(c net.Conn)
	}{
		{"it closes without a reply once it has the request", func(c net.Conn) {
			_, _ = http.ReadRequest(bufio.NewReader(c))
		}},
		{"it closes as soon as it accepts", func(net.Conn) {}},
		{"it answers garbage", func(c net.Conn) {
			if _, err := http.ReadRequest(bufio.NewReader(c)); err == nil {
				_, _ = io.WriteString(c, "garbage\r\n\r\n")
			}
		}},
		{"it cuts the body short", func(c net.Conn) {
			if _, err := http.ReadRequest(bufio.NewReader(c)); err == nil {
				_, _ = io.WriteString(c, "HTTP/1.1 201 Created\r\nContent-Length: 100\r\n\r\n{\"effect\":")
			}
		}},
		{"it resets the connection", func(c net.Conn) {
			if _, err := http.ReadRequest(bufio.NewReader(c)); err == nil {
				_ = c.(*net.TCPConn).SetLinger(0)
			}
		}},
	} {
		for _, mode := range []faults.BurstMode{faults.Synchronized, faults.Naive} {
			t.Run(tc.why+"/"+string(mode), func(t *testing.T) {
				url := rawServer(t, tc.handle)
				replies, err := fire(t, context.Background(), faults.Burst{N: 8, Mode: mode, Timeout: burstWait}, newOrder(t, url, "k"))
				require.NoError(t, err, "connections were opened: the failures are per reply")
				require.Len(t, replies, 8)
				for i, r := range replies {
					assert.Error(t, r.Err, "copy %d", i)
					assert.Contains(t, r.Err.Error(), fmt.Sprintf("burst copy %d of 8", i+1))
					assert.True(t, r.Received.IsZero(), "copy %d", i)
				}
			})
		}
	}
}

func TestBurstHangingServerHitsTheTimeout(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, mode := range []faults.BurstMode{faults.Synchronized, faults.Naive} {
		t.Run(string(mode), func(t *testing.T) {
			hold := make(chan struct{})
			bt := newBurstTarget(t, func(_ http.ResponseWriter, r *http.Request) {
				select {
				case <-hold:
				case <-r.Context().Done():
				}
			})
			defer bt.srv.Close() // after hold is closed: Close waits for the handlers
			defer close(hold)
			const timeout = 500 * time.Millisecond
			start := time.Now()
			replies, err := fire(t, context.Background(), faults.Burst{N: 6, Mode: mode, Timeout: timeout}, newOrder(t, bt.srv.URL, "k"))
			require.NoError(t, err)
			assert.GreaterOrEqual(t, time.Since(start), timeout, "no reply can come before the deadline")
			for i, r := range replies {
				require.Error(t, r.Err, "copy %d", i)
				assert.ErrorIs(t, r.Err, os.ErrDeadlineExceeded, "copy %d", i)
				assert.False(t, r.Sent.IsZero(), "copy %d was sent in full", i)
				assert.Zero(t, r.Status)
			}
			awaitEntries(t, bt, 6) // every copy reached a handler
		})
	}
}

func TestBurstCancelEndsEveryWait(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, mode := range []faults.BurstMode{faults.Synchronized, faults.Naive} {
		t.Run(string(mode), func(t *testing.T) {
			hold := make(chan struct{})
			bt := newBurstTarget(t, func(_ http.ResponseWriter, r *http.Request) {
				select {
				case <-hold:
				case <-r.Context().Done():
				}
			})
			defer bt.srv.Close()
			defer close(hold)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			type result struct {
				replies []faults.BurstReply
				err     error
			}
			done := make(chan result, 1)
			go func() {
				r, err := faults.Burst{N: 6, Mode: mode, Timeout: time.Hour}.Fire(ctx, newOrder(t, bt.srv.URL, "k"))
				done <- result{r, err}
			}()
			awaitEntries(t, bt, 6)
			cancel()
			var res result
			select {
			case res = <-done:
			case <-time.After(burstWait):
				t.Fatalf("Fire did not return within %v of the cancel", burstWait)
			}
			require.NoError(t, res.err)
			for i, r := range res.replies {
				assert.ErrorIs(t, r.Err, context.Canceled, "copy %d", i)
			}
		})
	}
}

func TestBurstCancelledBeforehandOpensNothing(t *testing.T) {
	bt := newBurstTarget(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, mode := range []faults.BurstMode{faults.Synchronized, faults.Naive} {
		_, err := fire(t, ctx, faults.Burst{N: 4, Mode: mode}, newOrder(t, bt.srv.URL, "k"))
		require.Error(t, err, mode)
		assert.ErrorIs(t, err, context.Canceled)
	}
	assert.Empty(t, bt.seen())
}

func TestBurstLeavesNoGoroutineOrConnectionBehind(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	var (
		mu    sync.Mutex
		open  = map[net.Conn]bool{}
		conns int
	)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusCreated)
	}))
	srv.Config.ConnState = func(c net.Conn, s http.ConnState) {
		mu.Lock()
		defer mu.Unlock()
		switch s {
		case http.StateNew:
			open[c] = true
			conns++
		case http.StateClosed, http.StateHijacked:
			delete(open, c)
		}
	}
	srv.Start()
	defer srv.Close()
	for _, mode := range []faults.BurstMode{faults.Synchronized, faults.Naive} {
		replies, err := fire(t, context.Background(), faults.Burst{N: 10, Mode: mode, Timeout: burstWait}, newOrder(t, srv.URL, "k"))
		require.NoError(t, err)
		for _, r := range replies {
			require.NoError(t, r.Err)
			assert.Equal(t, http.StatusCreated, r.Status)
		}
	}
	srv.Close() // waits for the server's side of every connection
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, 20, conns, "one new connection per copy")
	assert.Empty(t, open, "every connection closed")
}

// checkThenAct is a target built as check-then-act: look the key up under a
// lock, do the work outside it, then record the key. Two requests that both
// check before either records both execute.
type checkThenAct struct {
	window time.Duration

	mu    sync.Mutex
	done  map[string]bool
	execs map[string]int
}

func newCheckThenAct(window time.Duration) *checkThenAct {
	return &checkThenAct{window: window, done: map[string]bool{}, execs: map[string]int{}}
}

func (c *checkThenAct) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	_, _ = io.Copy(io.Discard, r.Body)
	c.mu.Lock()
	seen := c.done[key]
	c.mu.Unlock()
	if seen {
		_, _ = io.WriteString(w, `{"effect":"noop"}`)
		return
	}
	// The work: a busy wait, so the window is not stretched by the
	// scheduler as a sleep would be.
	for start := time.Now(); time.Since(start) < c.window; {
	}
	c.mu.Lock()
	c.done[key] = true
	c.execs[key]++
	c.mu.Unlock()
	w.WriteHeader(http.StatusCreated)
	_, _ = io.WriteString(w, `{"effect":"created"}`)
}

// executions returns how many times key was executed.
func (c *checkThenAct) executions(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.execs[key]
}

// duplicatedBursts fires bursts of n copies, each with its own key, at a
// check-then-act target with the given window until one is executed more
// than once or limit bursts have been fired; it returns how many duplicated
// and how many were fired.
func duplicatedBursts(tb testing.TB, mode faults.BurstMode, limit, n int, window time.Duration, stopAtFirst bool) (dups, fired int) {
	return duplicatedBurstsOver(tb, mode, limit, n, window, stopAtFirst, false)
}

// duplicatedBurstsOver is duplicatedBursts, with the target served and
// reached in memory when inMemory (as idemcheck serves a Go handler).
func duplicatedBurstsOver(tb testing.TB, mode faults.BurstMode, limit, n int, window time.Duration, stopAtFirst, inMemory bool) (dups, fired int) {
	tb.Helper()
	target := newCheckThenAct(window)
	srv := httptest.NewServer(target)
	defer srv.Close()
	var dial func(context.Context, string, string) (net.Conn, error)
	if inMemory {
		ln, err := memnet.Listen(strings.TrimPrefix(srv.URL, "http://"))
		require.NoError(tb, err)
		mem := &http.Server{Handler: target, ReadHeaderTimeout: burstWait}
		go func() { _ = mem.Serve(ln) }()
		defer mem.Close()
		dial = memnet.DialContext
	}
	for fired < limit && !(stopAtFirst && dups > 0) {
		fired++
		key := fmt.Sprintf("%s-%d", mode, fired)
		replies, err := faults.Burst{N: n, Mode: mode, Timeout: burstWait, Dial: dial}.Fire(context.Background(), newOrder(tb, srv.URL, key))
		require.NoError(tb, err)
		for _, r := range replies {
			require.NoError(tb, r.Err)
		}
		if target.executions(key) > 1 {
			dups++
		}
	}
	return dups, fired
}

func TestBurstSynchronizedDuplicatesACheckThenActHandler(t *testing.T) {
	// This is the point of a burst: copies arrive inside the window
	// between the check and the act. With a 50µs window on an idle 2-core
	// machine about half the bursts of 20 duplicate, under -race too; on
	// a loaded one, one in twenty (see BURSTS.md and
	// BenchmarkBurstCheckThenAct). A test must not be flaky, so the
	// assertion is that one burst in at most 200 does; the hit rate of the
	// first 20 is logged.
	const window = 50 * time.Microsecond
	dups, fired := duplicatedBursts(t, faults.Synchronized, 20, 20, window, false)
	t.Logf("synchronized: %d of %d bursts of 20 executed more than once", dups, fired)
	if dups == 0 && !testing.Short() {
		more, extra := duplicatedBursts(t, faults.Synchronized, 180, 20, window, true)
		dups, fired = more, fired+extra
		t.Logf("then %d of %d more", more, extra)
	}
	if testing.Short() {
		return
	}
	assert.Positive(t, dups, "none of %d bursts of 20 got two copies into a 50µs check-then-act window", fired)
}

// TestBurstInMemoryDuplicatesACheckThenActHandler: released to a handler
// served in memory, a burst's copies still arrive together, inside the
// same 50µs window, and the release spins no helper.
func TestBurstInMemoryDuplicatesACheckThenActHandler(t *testing.T) {
	if testing.Short() {
		t.Skip("up to 200 bursts")
	}
	dups, fired := duplicatedBurstsOver(t, faults.Synchronized, 200, 20, 50*time.Microsecond, true, true)
	t.Logf("in memory: %d of %d bursts of 20 executed more than once", dups, fired)
	assert.Positive(t, dups, "none of %d bursts of 20 in memory got two copies into a 50µs check-then-act window", fired)
}

// A burst of five copies of one order at a target that de-duplicates
// correctly: one copy creates the order, the others are told it is in
// progress (409) or get the first reply replayed, and the order is
// executed once.
func ExampleBurst_Fire() {
	var (
		mu         sync.Mutex
		state      = map[string]string{} // key -> "running" or "done"
		executions int
	)
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		mu.Lock()
		switch state[key] {
		case "running":
			mu.Unlock()
			w.WriteHeader(http.StatusConflict)
			return
		case "done":
			mu.Unlock()
			w.Header().Set("Idempotent-Replayed", "true")
			w.WriteHeader(http.StatusCreated)
			return
		}
		state[key] = "running"
		executions++
		mu.Unlock()
		// ... charge the customer ...
		mu.Lock()
		state[key] = "done"
		mu.Unlock()
		w.WriteHeader(http.StatusCreated)
	}))
	defer target.Close()

	req, _ := http.NewRequest(http.MethodPost, target.URL+"/orders", strings.NewReader(`{"amount":1200}`))
	req.Header.Set("Idempotency-Key", "order-7")
	replies, err := faults.Burst{N: 5}.Fire(context.Background(), req)
	if err != nil {
		fmt.Println(err)
		return
	}
	created, turnedAway := 0, 0
	for _, r := range replies {
		switch {
		case r.Err != nil:
			fmt.Println(r.Err)
		case r.Status == http.StatusCreated && r.Header.Get("Idempotent-Replayed") == "":
			created++
		default:
			turnedAway++
		}
	}
	mu.Lock()
	defer mu.Unlock()
	fmt.Printf("replies: %d, created: %d, 409 or replayed: %d, executions: %d\n", len(replies), created, turnedAway, executions)
	// Output:
	// replies: 5, created: 1, 409 or replayed: 4, executions: 1
}

// TestBurstOverTLS: the copies of a burst to an https:// URL each shake
// hands before the release, verified against the roots given, and all
// reach the server; a server the roots do not vouch for gets none.
func TestBurstOverTLS(t *testing.T) {
	t.Parallel()
	var got atomic.Int32
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Add(1)
		w.WriteHeader(http.StatusCreated)
	}))
	defer srv.Close()
	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())
	req := newOrder(t, srv.URL, "k")

	replies, err := faults.Burst{N: 5, TLS: &tls.Config{RootCAs: roots}}.Fire(context.Background(), req)
	require.NoError(t, err)
	require.Len(t, replies, 5)
	for _, r := range replies {
		require.NoError(t, r.Err)
		assert.Equal(t, http.StatusCreated, r.Status)
	}
	assert.EqualValues(t, 5, got.Load())

	_, err = faults.Burst{N: 3}.Fire(context.Background(), newOrder(t, srv.URL, "k2"))
	require.Error(t, err, "the system's roots do not vouch for the test server")
	assert.Contains(t, err.Error(), "TLS handshake")
	assert.EqualValues(t, 5, got.Load(), "no copy reached the server")
}
