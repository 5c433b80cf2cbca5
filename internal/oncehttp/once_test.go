package oncehttp_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	neturl "net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/internal/oncehttp"
)

// waitLimit bounds every wait: a deadline for a hang, not a timing
// assertion.
const waitLimit = 5 * time.Second

// rawServer is an HTTP/1.1 server on loopback written on the bare
// connection, so that a test can end a connection at any point: it counts
// every request it read whole, by Idempotency-Key, and answers it unless
// kill says otherwise.
type rawServer struct {
	ln net.Listener
	// kill, for a request read whole, says how to end its connection
	// instead of answering: "" answers, "after" resets it without a
	// reply, "reply" resets it in the middle of the reply's status line,
	// "idle" answers and then resets it.
	kill func(key string, nth int) string

	// idled receives an event each time an "idle" kill has reset its
	// connection.
	idled chan struct{}

	mu    sync.Mutex
	seen  map[string]int
	body  map[string]string // the last body read whole, by key
	conns int
	wg    sync.WaitGroup
}

func newRawServer(t *testing.T, kill func(key string, nth int) string) *rawServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s := &rawServer{ln: ln, kill: kill, seen: map[string]int{}, body: map[string]string{}, idled: make(chan struct{}, 4)}
	s.wg.Go(s.accept)
	t.Cleanup(func() {
		_ = ln.Close()
		s.wg.Wait()
	})
	return s
}

func (s *rawServer) url() string { return "http://" + s.ln.Addr().String() }

func (s *rawServer) accept() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		s.conns++
		s.mu.Unlock()
		s.wg.Go(func() { s.serve(c) })
	}
}

func reset(c net.Conn) {
	_ = c.(*net.TCPConn).SetLinger(0)
	_ = c.Close()
}

func (s *rawServer) serve(c net.Conn) {
	_ = c.SetDeadline(time.Now().Add(waitLimit))
	br := bufio.NewReader(c)
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			_ = c.Close()
			return
		}
		body, err := io.ReadAll(req.Body)
		if err != nil {
			_ = c.Close()
			return
		}
		key := req.Header.Get("Idempotency-Key")
		s.mu.Lock()
		s.body[key] = string(body)
		s.seen[key]++
		nth := s.seen[key]
		s.mu.Unlock()
		switch s.kill(key, nth) {
		case "after":
			reset(c)
			return
		case "reply":
			_, _ = io.WriteString(c, "HTTP/1.1 2")
			reset(c)
			return
		}
		if _, err := io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"); err != nil {
			return
		}
		if s.kill(key, nth) == "idle" {
			reset(c)
			s.idled <- struct{}{}
			return
		}
	}
}

func (s *rawServer) count(key string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seen[key]
}

// bodyOf is the body of the last request with key read whole.
func (s *rawServer) bodyOf(key string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.body[key]
}

// killer wraps the client's connections: armed, the next write on one
// resets the connection before writing ("before") or after half of its
// bytes ("while"). It fires once.
type killer struct{ mode atomic.Value }

func (k *killer) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return &killConn{Conn: c, k: k}, nil
}

type killConn struct {
	net.Conn
	k *killer
}

func (c *killConn) Write(b []byte) (int, error) {
	mode, _ := c.k.mode.Swap("").(string)
	switch mode {
	case "before":
		reset(c.Conn)
		return 0, io.ErrClosedPipe
	case "while":
		n, _ := c.Conn.Write(b[:len(b)/2])
		reset(c.Conn)
		return n, io.ErrClosedPipe
	}
	return c.Conn.Write(b)
}

// sender sends one keyed POST, as idemcheck sends its calls: a body net/http
// can get again (GetBody) and an Idempotency-Key, which makes it
// "replayable" to net/http's Transport.
type sender func(ctx context.Context, url, key string) error

// keyedBody is the body of every keyed request.
const keyedBody = `{"amount":100}`

func keyed(ctx context.Context, url, key string) *http.Request {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url+"/charges", strings.NewReader(keyedBody))
	req.Header.Set("Idempotency-Key", key)
	return req
}

// keyedBytes is keyed as the fault proxy forwards a request: its body
// held whole (oncehttp.BytesBody, no GetBody), its context given apart.
func keyedBytes(url, key string) *http.Request {
	req, _ := http.NewRequest(http.MethodPost, url+"/charges", nil)
	req.Body, req.ContentLength = oncehttp.BytesBody([]byte(keyedBody)), int64(len(keyedBody))
	req.Header.Set("Idempotency-Key", key)
	return req
}

func onceSender(c *oncehttp.Client, errs chan<- error) sender {
	return onceSenderOf(c, errs, "")
}

// How a keyed request is sent (onceSenderOf): built by keyed, by
// keyedBytes, or in wire form as the fault proxy forwards one it passes
// through.
const (
	sendRequest = ""
	sendHeld    = "held-body"
	sendWire    = "wire"
)

// onceSenderOf is onceSender, with requests sent as how says.
func onceSenderOf(c *oncehttp.Client, errs chan<- error, how string) sender {
	return func(ctx context.Context, url, key string) error {
		var resp *http.Response
		var err error
		switch how {
		case sendHeld:
			resp, err = c.DoContext(ctx, keyedBytes(url, key), false)
		case sendWire:
			u, _ := neturl.Parse(url)
			head := "POST /charges HTTP/1.1\r\nHost: " + u.Host + "\r\nUser-Agent: Go-http-client/1.1\r\n" +
				"Content-Length: " + strconv.Itoa(len(keyedBody)) + "\r\nIdempotency-Key: " + key + "\r\n\r\n"
			resp, err = c.DoWire(ctx, u, []byte(head), []byte(keyedBody), 1<<20, func(int, *oncehttp.PlainHead, []byte) {})
			if err == nil && resp == nil {
				errs <- nil
				return nil // taken in wire form, body and all
			}
		default:
			resp, err = c.Do(keyed(ctx, url, key), false)
		}
		errs <- err
		if err != nil {
			return err
		}
		_, err = io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		return err
	}
}

func stdSender(tr *http.Transport) sender {
	return func(ctx context.Context, url, key string) error {
		resp, err := tr.RoundTrip(keyed(ctx, url, key))
		if err != nil {
			return err
		}
		_, err = io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		return err
	}
}

// The points at which a reused connection is ended while the second
// request goes out on it.
var killPoints = []struct {
	name string
	// client: the client's connection is reset at its write; server: the
	// server ends it (see rawServer.kill).
	client, server string
	// sent: the request may have reached the server (written whole).
	sent bool
	// failed: the caller gets an error (the reply is lost).
	failed bool
}{
	{name: "closed by the server while idle", server: "idle-before", failed: false},
	{name: "before the request is written", client: "before", failed: false},
	{name: "while the request is written", client: "while", failed: true},
	{name: "after it is written, before the reply", server: "after", sent: true, failed: true},
	{name: "in the middle of the reply", server: "reply", sent: true, failed: true},
}

// run sends a warm-up request, then the keyed request whose connection is
// ended at pt, then one more; it returns the server and the keyed
// request's error.
func run(t *testing.T, pt string, send func(k *killer) sender, k *killer, server string) (*rawServer, error) {
	t.Helper()
	srv := newRawServer(t, func(key string, nth int) string {
		switch {
		case key == "warm" && server == "idle-before":
			return "idle"
		case key == "k2" && nth == 1 && server != "idle-before":
			return server
		}
		return ""
	})
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	s := send(k)
	require.NoError(t, s(ctx, srv.url(), "warm"), "the warm-up request leaves a connection to reuse")
	if server == "idle-before" {
		select {
		case <-srv.idled: // the idle connection is reset before the next request
		case <-ctx.Done():
			t.Fatal("the server never reset the idle connection")
		}
	}
	k.mode.Store(pt)
	err := s(ctx, srv.url(), "k2")
	require.NoError(t, s(ctx, srv.url(), "k3"), "a later request works")
	return srv, err
}

// TestNoRequestIsReceivedTwiceWhereverAReusedConnectionDies: a keyed
// request on a reused connection that dies at any point reaches the server
// at most once with this client, which says whether it may have been
// sent; net/http's Transport, with the same request, sends it again when
// the connection dies after the request was written, and the server gets
// it twice: the duplicate that idemcheck must never cause.
func TestNoRequestIsReceivedTwiceWhereverAReusedConnectionDies(t *testing.T) {
	for _, p := range killPoints {
		for _, how := range []string{sendRequest, sendHeld, sendWire} {
			name := "oncehttp/"
			if how != sendRequest {
				name = "oncehttp-" + how + "/"
			}
			t.Run(name+p.name, func(t *testing.T) {
				errs := make(chan error, 3)
				c := &oncehttp.Client{}
				defer c.Close()
				k := &killer{}
				c.Dial = k.dial
				srv, err := run(t, p.client, func(*killer) sender { return onceSenderOf(c, errs, how) }, k, p.server)
				assert.LessOrEqual(t, srv.count("k2"), 1, "the server received the request more than once")
				if srv.count("k2") == 1 {
					assert.Equal(t, keyedBody, srv.bodyOf("k2"), "the request's body arrived whole")
				}
				<-errs
				if p.failed {
					require.Error(t, err)
					assert.Equal(t, p.sent, oncehttp.Sent(err), "Sent(%v)", err)
					var oe *oncehttp.Error
					require.ErrorAs(t, err, &oe)
					assert.True(t, oe.Reused, "the request went on the reused connection")
					if !p.sent {
						assert.Zero(t, srv.count("k2"), "a request not written whole never reaches the server")
					}
				} else {
					require.NoError(t, err)
					assert.Equal(t, 1, srv.count("k2"))
				}
			})
		}
		t.Run("net-http/"+p.name, func(t *testing.T) {
			k := &killer{}
			tr := &http.Transport{DialContext: k.dial}
			defer tr.CloseIdleConnections()
			srv, _ := run(t, p.client, func(*killer) sender { return stdSender(tr) }, k, p.server)
			if p.server == "after" {
				assert.Equal(t, 2, srv.count("k2"), "net/http sends a replayable request again after a reused connection died")
			} else {
				assert.LessOrEqual(t, srv.count("k2"), 1)
			}
		})
	}
}
