package faults_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/idemcheck/idemcheck/faults"
)

// recordingTarget is a target on a TCP socket that records each request's
// bytes as they arrived and answers with the reply it is given next.
type recordingTarget struct {
	ln    net.Listener
	mu    sync.Mutex
	reply []byte
	got   [][]byte
	wg    sync.WaitGroup
}

func newRecordingTarget(t *testing.T) *recordingTarget {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	rt := &recordingTarget{ln: ln}
	rt.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			rt.wg.Go(func() { rt.serve(c) })
		}
	})
	t.Cleanup(func() {
		_ = ln.Close()
		rt.wg.Wait()
	})
	return rt
}

func (rt *recordingTarget) serve(c net.Conn) {
	defer c.Close()
	br := bufio.NewReader(c)
	for {
		msg, err := readRawMessage(br)
		if err != nil {
			return
		}
		rt.mu.Lock()
		rt.got = append(rt.got, msg)
		reply := rt.reply
		rt.mu.Unlock()
		if _, err := c.Write(reply); err != nil {
			return
		}
	}
}

// take returns the requests received since the last take.
func (rt *recordingTarget) take() [][]byte {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	got := rt.got
	rt.got = nil
	return got
}

// readRawMessage reads one HTTP/1.1 message framed by its
// Content-Length (none: no body), head and body, as bytes.
func readRawMessage(br *bufio.Reader) ([]byte, error) { return readRawReply(br, false) }

// wireCase is one request and the target's reply to it, as bytes.
type wireCase struct {
	armed          bool
	method, target string
	fields         [][2]string
	body           string
	status         string
	replyFields    [][2]string
	replyBody      string
}

func (c wireCase) request(id string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: proxy.test\r\n", c.method, c.target)
	for _, f := range c.fields {
		fmt.Fprintf(&b, "%s:%s\r\n", f[0], f[1])
	}
	fmt.Fprintf(&b, "%s: %s\r\n", faults.AttemptHeader, id)
	if c.body != "" || c.method == "POST" {
		fmt.Fprintf(&b, "Content-Length: %d\r\n", len(c.body))
	}
	b.WriteString("\r\n" + c.body)
	return b.Bytes()
}

func (c wireCase) reply() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "HTTP/1.1 %s\r\n", c.status)
	for _, f := range c.replyFields {
		fmt.Fprintf(&b, "%s:%s\r\n", f[0], f[1])
	}
	fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n%s", len(c.replyBody), c.replyBody)
	return b.Bytes()
}

var (
	wireNames = []string{"Idempotency-Key", "Content-Type", "Accept", "X-Trace", "User-Agent", "Authorization",
		"Accept-Encoding", "X-A", "X-B-C", "Cookie", "Etag", "Date", "Location", "Cache-Control",
		// Read the full way: not canonical, hop-by-hop, or asking for a
		// 100 Continue.
		"x-lower", "ACCEPT", "Keep-Alive", "Upgrade", "Expect", "Connection", "Te", "Proxy-Connection",
		// Framing, read the full way, and odd names.
		"Transfer-Encoding", "Content-Length", "Pragma", "Host", "X_Y"}
	wireValues = []string{"", "k-1", " spaced ", "\ttabbed", "a\tb", "application/json", "close", "keep-alive", "a, b",
		"100-continue", "ünïcode", "\xff\xfe", "x=1; y=2", "12"}
)

func drawFields(t *rapid.T, label string) [][2]string {
	n := rapid.IntRange(0, 6).Draw(t, label+"-n")
	fields := make([][2]string, n)
	for i := range fields {
		fields[i] = [2]string{
			rapid.SampledFrom(wireNames).Draw(t, label+"-name"),
			rapid.SampledFrom(wireValues).Draw(t, label+"-value"),
		}
	}
	return fields
}

func drawWireCase(t *rapid.T) wireCase {
	return wireCase{
		armed:  rapid.Bool().Draw(t, "armed"),
		method: rapid.SampledFrom([]string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"}).Draw(t, "method"),
		target: rapid.SampledFrom([]string{"/", "/orders", "/orders/42?x=1", "/a%2Fb", "/a%zz", "/é", "/a?", "/a??b",
			"//twice", "/a b", "/~user/(x)*;p=1:@", "/a#frag", "/q?c=%ZZ&d=é", "/[v]"}).Draw(t, "target"),
		fields: drawFields(t, "field"),
		body:   rapid.SampledFrom([]string{"", `{"memo":"m"}`, strings.Repeat("b", 3000), strings.Repeat("c", 9000)}).Draw(t, "body"),
		status: rapid.SampledFrom([]string{"200 OK", "201 Created", "201 Whatever", "404 Not Found", "299 ", "503 Service Unavailable",
			"204 No Content", "302 Found", "500",
			// An informational reply before the final one.
			"100 Continue\r\n\r\nHTTP/1.1 200 OK", "103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 201 Created"}).Draw(t, "status"),
		replyFields: drawFields(t, "reply-field"),
		replyBody:   rapid.SampledFrom([]string{"", `{"id":1}`, "<html>x</html>", strings.Repeat("r", 20000)}).Draw(t, "reply-body"),
	}
}

// TestWireMatchesTheFullPath sends the same requests through a proxy that
// forwards in wire form where it can and one that never does, to a
// target that answers each with the same bytes: the target receives the
// same bytes from both, the client gets the same reply from both, and
// the reports are the same; the wire form was taken where a request and
// a reply allow it.
func TestWireMatchesTheFullPath(t *testing.T) {
	for _, base := range []string{"", "/base/"} {
		t.Run("base="+base, func(t *testing.T) { testWireMatchesTheFullPath(t, base) })
	}
}

func testWireMatchesTheFullPath(t *testing.T, base string) {
	var wireRequests, wireReplies atomic.Int64
	defer faults.CountWire(&wireRequests, &wireReplies)()
	rt := newRecordingTarget(t)
	wire, err := faults.NewProxy("http://"+rt.ln.Addr().String()+base, 5*time.Second)
	require.NoError(t, err)
	defer wire.Close()
	full, err := faults.NewProxy("http://"+rt.ln.Addr().String()+base, 5*time.Second)
	require.NoError(t, err)
	defer full.Close()
	faults.WithoutWire(full)

	type client struct {
		p  *faults.Proxy
		c  net.Conn
		br *bufio.Reader
	}
	dial := func(p *faults.Proxy) *client {
		c, err := net.Dial("tcp", strings.TrimPrefix(p.URL(), "http://"))
		require.NoError(t, err)
		return &client{p: p, c: c, br: bufio.NewReader(c)}
	}
	clients := []*client{dial(wire), dial(full)}
	defer func() {
		for _, c := range clients {
			_ = c.c.Close()
		}
	}()
	n := 0
	rapid.Check(t, func(t *rapid.T) {
		c := drawWireCase(t)
		rt.mu.Lock()
		rt.reply = c.reply()
		rt.mu.Unlock()
		var sent [2][][]byte
		var replies [2][]byte
		var reports [2]faults.Report
		for i, cl := range clients {
			n++
			id := "w" + strconv.Itoa(n)
			if c.armed {
				cl.p.Arm(id, nil)
			}
			if _, err := cl.c.Write(c.request(id)); err != nil {
				t.Fatal(err)
			}
			reply, err := readRawReply(cl.br, c.method == "HEAD")
			// The proxy closes the connection without a reply (an end, or a
			// reset when the request's body is left unread) when it cannot
			// read a request's body.
			closed := err != nil
			if closed {
				reply = []byte("closed without a reply")
			}
			if closed || bytes.Contains(reply, []byte("Connection: close")) {
				_ = cl.c.Close()
				*cl = *dial(cl.p)
			}
			if !c.armed {
				// Passed through unreported.
			} else if (closed || bytes.HasPrefix(reply, []byte("HTTP/1.1 400 Bad Request\r\n"))) && len(rt.take()) == 0 {
				// The proxy could not read the request: no exchange, no
				// report.
				cl.p.Forget(id)
			} else if rep, ok := cl.p.Report(t.Context(), id, 5*time.Second); ok {
				reports[i] = rep
			} else {
				t.Fatalf("no report from proxy %d", i)
			}
			replies[i], sent[i] = reply, rt.take()
		}
		// An error the proxy answers names the connection's own port.
		for i := range replies {
			replies[i] = localPort.ReplaceAll(replies[i], nil)
			reports[i].UpstreamError = localPort.ReplaceAllString(reports[i].UpstreamError, "")
		}
		if !bytes.Equal(replies[0], replies[1]) {
			t.Fatalf("the client got\n%q\nin wire form, and\n%q\nthe full way", replies[0], replies[1])
		}
		if len(sent[0]) != len(sent[1]) {
			t.Fatalf("the target got %d requests in wire form and %d the full way", len(sent[0]), len(sent[1]))
		}
		for i := range sent[0] {
			if !bytes.Equal(sent[0][i], sent[1][i]) {
				t.Fatalf("the target got\n%q\nin wire form, and\n%q\nthe full way", sent[0][i], sent[1][i])
			}
		}
		if reports[0] != reports[1] {
			t.Fatalf("report %+v in wire form, %+v the full way", reports[0], reports[1])
		}
	})
	// Plain requests and replies are drawn often enough that the wire form
	// must have been taken, for requests and replies both.
	require.Positive(t, wireRequests.Load(), "no request was forwarded in wire form")
	require.Positive(t, wireReplies.Load(), "no reply was read in wire form")
	t.Logf("%d of %d requests in wire form, %d of their replies", wireRequests.Load(), n/2, wireReplies.Load())
}

var localPort = regexp.MustCompile(`127\.0\.0\.1:[0-9]+->`)

// readRawReply reads the proxy's reply, framed by its Content-Length
// (none for a HEAD's), after the informational replies (1xx) before it,
// which it returns with it.
func readRawReply(br *bufio.Reader, head bool) ([]byte, error) {
	var msg []byte
	for {
		start := len(msg)
		length := 0
		for {
			line, err := br.ReadSlice('\n')
			if err != nil {
				return nil, err
			}
			msg = append(msg, line...)
			if name, value, ok := strings.Cut(string(line), ":"); ok && strings.EqualFold(name, "Content-Length") {
				length, _ = strconv.Atoi(strings.TrimSpace(value))
			}
			if string(line) == "\r\n" {
				break
			}
		}
		if bytes.HasPrefix(msg[start:], []byte("HTTP/1.1 1")) {
			continue
		}
		if head {
			return msg, nil
		}
		body := make([]byte, length)
		if _, err := io.ReadFull(br, body); err != nil {
			return nil, err
		}
		return append(msg, body...), nil
	}
}
