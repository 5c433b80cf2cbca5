package oncehttp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Heads every reader below sees: what idemcheck's client writes, what a
// Go server answers, and heads that are not plain, each of which must be
// left to net/http.
var (
	plainRequests = []string{
		"POST /orders HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: idemcheck\r\nContent-Length: 12\r\nContent-Type: application/json\r\nIdempotency-Key: k-1\r\n\r\n{\"memo\":\"m\"}",
		"GET /orders/7?x=1 HTTP/1.1\r\nHost: h\r\nAccept: */*\r\n\r\n",
		"GET http://example.com/a HTTP/1.1\r\nHost: other\r\nConnection: keep-alive, Close\r\n\r\n",
		"DELETE /a HTTP/1.1\r\nx-lower-case:  padded value \t\r\nX-Dup: 1\r\nx-dup: 2\r\n\r\n",
		"PUT /a HTTP/1.1\r\nContent-Length: 0\r\n\r\n",
		"POST /a HTTP/1.1\r\nContent-Length: 5\r\n\r\nab",
		"GET / HTTP/1.1\r\nHost: h\r\nConnection: clo\u017fe\r\n\r\nGET /b HTTP/1.1\r\n\r\n",
	}
	otherRequests = []string{
		"POST /a HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
		"GET /a HTTP/1.0\r\nHost: h\r\n\r\n",
		"GET /a HTTP/1.1\nHost: h\n\n",
		"GET /a HTTP/1.1\r\nX: a\r\n b\r\n\r\n",
		"GET /a HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
		"POST /a HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc",
		"POST /a HTTP/1.1\r\nContent-Length: +3\r\n\r\nabc",
		"CONNECT example.com:443 HTTP/1.1\r\n\r\n",
		"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
		"GET /a HTTP/1.1\r\nPragma: no-cache\r\n\r\n",
		"GET /a HTTP/1.1\r\nBad Key: v\r\n\r\n",
		"GET /a HTTP/1.1\r\nX: a\x00b\r\n\r\n",
		"GET a HTTP/1.1\r\n\r\n",
		"GET /a HTTP/1.1\r\nHost: h\r\n",
	}
	plainReplies = []string{
		"HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nDate: Sun, 29 Nov 2026 02:00:00 GMT\r\nContent-Length: 14\r\n\r\n{\"id\":\"ord_1\"}",
		"HTTP/1.1 409 Conflict\r\nContent-Length: 0\r\n\r\n",
		"HTTP/1.1 200\r\nContent-Length: 2\r\nSet-Cookie: a=1\r\nset-cookie: b=2\r\n\r\nok",
		"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nConnection: keep-alive\r\nContent-Length: 4\r\n\r\nbu",
		"HTTP/1.1 200 OK\r\nConnection: clo\u017fe\r\nContent-Length: 0\r\n\r\n",
	}
	otherReplies = []string{
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n",
		"HTTP/1.1 200 OK\r\n\r\nuntil the end",
		"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok",
		"HTTP/1.1 204 No Content\r\nContent-Length: 3\r\n\r\n",
		"HTTP/1.1 304 Not Modified\r\n\r\n",
		"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
		"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok",
		"HTTP/1.1 200 OK\nContent-Length: 2\n\nok",
		"HTTP/1.1 2000 OK\r\nContent-Length: 0\r\n\r\n",
		"HTTP/1.1 600 Odd\r\nContent-Length: 0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 1, 1\r\n\r\nx",
		"HTTP/1.1 200 OK\r\nTrailer: X\r\nContent-Length: 0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n",
	}
)

// readerOf is a reader over raw with its bytes buffered, as a connection
// whose bytes arrived in one piece.
func readerOf(raw string) *bufio.Reader {
	br := bufio.NewReaderSize(strings.NewReader(raw), 4096)
	_, _ = br.Peek(1)
	return br
}

func TestPlainHeadsTakeTheFastPath(t *testing.T) {
	for _, raw := range plainRequests {
		assert.NotNil(t, fastRequest(readerOf(raw)), "%q", raw)
	}
	for _, raw := range otherRequests {
		assert.Nil(t, fastRequest(readerOf(raw)), "%q", raw)
	}
	post := httptest.NewRequest(http.MethodPost, "/orders", nil)
	for _, raw := range plainReplies {
		assert.NotNil(t, fastResponse(readerOf(raw), post), "%q", raw)
	}
	for _, raw := range otherReplies {
		assert.Nil(t, fastResponse(readerOf(raw), post), "%q", raw)
	}
	assert.Nil(t, fastResponse(readerOf(plainReplies[0]), httptest.NewRequest(http.MethodHead, "/", nil)),
		"a reply to HEAD announces a length it does not send")

	// What this client writes, and what a Go server answers it, are
	// plain.
	var buf bytes.Buffer
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:9/orders", strings.NewReader(`{"memo":"m"}`))
	req.Header.Set("Idempotency-Key", "k")
	w := bufio.NewWriter(&buf)
	require.NoError(t, writeRequest(w, req))
	require.NoError(t, w.Flush())
	got := fastRequest(readerOf(buf.String()))
	require.NotNil(t, got, "%q", buf.String())
	assert.Equal(t, "k", got.Header.Get("Idempotency-Key"))

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_, _ = io.WriteString(w, `{"id":"ord_1"}`)
	}))
	defer srv.Close()
	var c Client
	defer c.Close()
	resp, err := c.Do(httptest.NewRequest(http.MethodPost, srv.URL+"/orders", strings.NewReader("{}")).WithContext(t.Context()), false)
	require.NoError(t, err)
	defer resp.Body.Close()
	_, fast := resp.Body.(*body).rc.(*fixedBody)
	assert.True(t, fast, "a Go server's reply is read on the fast path")
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, `{"id":"ord_1"}`, string(b))
}

// readAllOf reads what a body gives, what a read after its end or its
// error gives, what a read after its Close gives, and what the reader
// holds after it.
func readAllOf(body io.ReadCloser, br *bufio.Reader) string {
	b, err := io.ReadAll(body)
	n, again := body.Read(make([]byte, 8))
	_ = body.Close()
	_, closed := body.Read(make([]byte, 8))
	rest, _ := io.ReadAll(br)
	return fmt.Sprintf("body %q, %v; then %d, %v; closed: %v; then %q", b, err, n, again, closed, rest)
}

// sameErrors fails t unless err, ours, is net/http's nerr (the same
// text); it says whether either is an error.
func sameErrors(t *testing.T, raw string, err, nerr error) bool {
	t.Helper()
	if fmt.Sprint(err) != fmt.Sprint(nerr) {
		t.Fatalf("%q: error %v, net/http's %v", raw, err, nerr)
	}
	return err != nil || nerr != nil
}

// field is one thing read from raw, ours and net/http's.
type field struct {
	what       string
	got, wants any
}

// sameFields fails t at the first field where ours is not net/http's.
func sameFields(t *testing.T, raw string, fs []field) {
	t.Helper()
	for _, d := range fs {
		if !reflect.DeepEqual(d.got, d.wants) {
			t.Fatalf("%q: %s %#v, net/http's %#v", raw, d.what, d.got, d.wants)
		}
	}
}

// sameRequest fails t unless ours, read by ReadRequest, is what
// http.ReadRequest reads from raw.
func sameRequest(t *testing.T, raw string) {
	t.Helper()
	sameRequestFrom(t, raw, func() *bufio.Reader { return readerOf(raw) })
}

// sameRequestFrom is sameRequest on the readers mk makes, one for each.
func sameRequestFrom(t *testing.T, raw string, mk func() *bufio.Reader) {
	t.Helper()
	br := mk()
	ours, err := ReadRequest(br)
	nbr := mk()
	theirs, nerr := http.ReadRequest(nbr)
	if sameErrors(t, raw, err, nerr) {
		return
	}
	sameFields(t, raw, []field{
		{"method", ours.Method, theirs.Method},
		{"URL", ours.URL, theirs.URL},
		{"proto", []any{ours.Proto, ours.ProtoMajor, ours.ProtoMinor}, []any{theirs.Proto, theirs.ProtoMajor, theirs.ProtoMinor}},
		{"header", ours.Header, theirs.Header},
		{"length", ours.ContentLength, theirs.ContentLength},
		{"transfer encoding", ours.TransferEncoding, theirs.TransferEncoding},
		{"close", ours.Close, theirs.Close},
		{"host", ours.Host, theirs.Host},
		{"trailer", ours.Trailer, theirs.Trailer},
		{"request URI", ours.RequestURI, theirs.RequestURI},
		{"no body", ours.Body == http.NoBody, theirs.Body == http.NoBody},
		{"body", readAllOf(ours.Body, br), readAllOf(theirs.Body, nbr)},
	})
}

// sameReply fails t unless ours, read by readResponse, is what
// http.ReadResponse reads from raw.
func sameReply(t *testing.T, raw string, method string) {
	t.Helper()
	sameReplyFrom(t, raw, method, func() *bufio.Reader { return readerOf(raw) })
}

// sameReplyFrom is sameReply on the readers mk makes, one for each.
func sameReplyFrom(t *testing.T, raw string, method string, mk func() *bufio.Reader) {
	t.Helper()
	req := httptest.NewRequest(method, "/", nil)
	br := mk()
	ours, err := readResponse(br, req, nil)
	nbr := mk()
	theirs, nerr := http.ReadResponse(nbr, req)
	if sameErrors(t, raw, err, nerr) {
		return
	}
	sameFields(t, raw, []field{
		{"status", []any{ours.Status, ours.StatusCode}, []any{theirs.Status, theirs.StatusCode}},
		{"proto", []any{ours.Proto, ours.ProtoMajor, ours.ProtoMinor}, []any{theirs.Proto, theirs.ProtoMajor, theirs.ProtoMinor}},
		{"header", ours.Header, theirs.Header},
		{"length", ours.ContentLength, theirs.ContentLength},
		{"transfer encoding", ours.TransferEncoding, theirs.TransferEncoding},
		{"close", ours.Close, theirs.Close},
		{"uncompressed", ours.Uncompressed, theirs.Uncompressed},
		{"trailer", ours.Trailer, theirs.Trailer},
		{"request", ours.Request == req, theirs.Request == req},
		{"no body", ours.Body == http.NoBody, theirs.Body == http.NoBody},
		{"body", readAllOf(ours.Body, br), readAllOf(theirs.Body, nbr)},
	})
}

func TestFastHeadReadsWhatNetHTTPReads(t *testing.T) {
	for _, raw := range append(plainRequests, otherRequests...) {
		sameRequest(t, raw)
	}
	for _, raw := range append(plainReplies, otherReplies...) {
		for _, m := range []string{http.MethodPost, http.MethodGet, http.MethodHead} {
			sameReply(t, raw, m)
		}
	}
}

// resetAfter is a connection that delivers its first n bytes, then fails
// once with a reset, then ends, as a TCP connection reset by its peer
// does.
type resetAfter struct {
	r      io.Reader
	n      int
	failed bool
}

var errReset = errors.New("read tcp 127.0.0.1:1->127.0.0.1:2: read: connection reset by peer")

func (c *resetAfter) Read(p []byte) (int, error) {
	if c.n <= 0 {
		if !c.failed {
			c.failed = true
			return 0, errReset
		}
		return 0, io.EOF
	}
	n, err := c.r.Read(p[:min(len(p), c.n)])
	c.n -= n
	return n, err
}

// TestFastHeadFailsAsNetHTTPFails: on a connection that nothing was read
// from yet, and that is reset before, during or after a head, a read
// fails with the error net/http's would (a reset, not the end of the
// connection that a second read after it finds), or succeeds alike.
func TestFastHeadFailsAsNetHTTPFails(t *testing.T) {
	for _, raw := range append(plainRequests, otherRequests...) {
		for _, n := range []int{0, 1, len(raw) / 2, len(raw)} {
			sameRequestFrom(t, raw, func() *bufio.Reader {
				return bufio.NewReaderSize(&resetAfter{r: strings.NewReader(raw), n: n}, 4096)
			})
		}
	}
	for _, raw := range append(plainReplies, otherReplies...) {
		for _, n := range []int{0, 1, len(raw) / 2, len(raw)} {
			sameReplyFrom(t, raw, http.MethodPost, func() *bufio.Reader {
				return bufio.NewReaderSize(&resetAfter{r: strings.NewReader(raw), n: n}, 4096)
			})
		}
	}
	_, err := readResponse(bufio.NewReader(&resetAfter{r: strings.NewReader("")}), nil, nil)
	assert.ErrorIs(t, err, errReset)
	_, err = readResponse(bufio.NewReader(strings.NewReader("")), nil, nil)
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF, "a connection that ends before a reply")
	_, err = ReadRequest(bufio.NewReader(strings.NewReader("")))
	assert.ErrorIs(t, err, io.EOF, "a connection that ends between requests")
}

// TestAResetBeforeTheReplyIsReportedAsAReset: a target that reads a
// request and resets the connection gives the client a reset, not the
// end of the connection that a second read would find.
func TestAResetBeforeTheReplyIsReportedAsAReset(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		_, _ = http.ReadRequest(bufio.NewReader(c))
		_ = c.(*net.TCPConn).SetLinger(0)
		_ = c.Close()
	}()
	var c Client
	defer c.Close()
	req := httptest.NewRequest(http.MethodGet, "http://"+ln.Addr().String()+"/", nil).WithContext(t.Context())
	_, err = c.Do(req, true)
	require.Error(t, err)
	assert.ErrorIs(t, err, syscall.ECONNRESET)
}

// chunks is a connection whose bytes come size at a time.
type chunks struct {
	r    io.Reader
	size int
}

func (c *chunks) Read(p []byte) (int, error) { return c.r.Read(p[:min(len(p), c.size)]) }

// FuzzFastHeadMatchesNetHTTP: whatever the bytes, a request or a reply
// read with the fast path is what net/http reads. The low two bits of
// which choose a request or a reply (to POST, GET or HEAD); the next two
// how the bytes come: buffered whole before the read, a few at a time
// (which>>4 + 1), or cut by a reset after a part of them (which>>4
// sixteenths).
func FuzzFastHeadMatchesNetHTTP(f *testing.F) {
	for _, raw := range append(plainRequests, otherRequests...) {
		f.Add(raw, uint8(0))
		f.Add(raw, uint8(0x24)) // 3 bytes at a time
		f.Add(raw, uint8(0x88)) // reset half-way
	}
	for _, raw := range append(plainReplies, otherReplies...) {
		f.Add(raw, uint8(1))
		f.Add(raw, uint8(3))
		f.Add(raw, uint8(0x75)) // 8 bytes at a time
		f.Add(raw, uint8(0xc9)) // reset after three quarters
	}
	f.Fuzz(func(t *testing.T, raw string, which uint8) {
		mk := func() *bufio.Reader { return readerOf(raw) }
		switch which >> 2 & 3 {
		case 1:
			size := int(which>>4) + 1
			mk = func() *bufio.Reader { return bufio.NewReaderSize(&chunks{r: strings.NewReader(raw), size: size}, 4096) }
		case 2, 3:
			n := len(raw) * int(which>>4) / 16
			mk = func() *bufio.Reader { return bufio.NewReaderSize(&resetAfter{r: strings.NewReader(raw), n: n}, 4096) }
		}
		switch which % 4 {
		case 0:
			sameRequestFrom(t, raw, mk)
		case 1:
			sameReplyFrom(t, raw, http.MethodPost, mk)
		case 2:
			sameReplyFrom(t, raw, http.MethodGet, mk)
		default:
			sameReplyFrom(t, raw, http.MethodHead, mk)
		}
	})
}

// BenchmarkReadHead compares a plain request and reply read on the fast
// path with net/http's reading of them.
func BenchmarkReadHead(b *testing.B) {
	req, reply := plainRequests[0], plainReplies[0]
	post := httptest.NewRequest(http.MethodPost, "/orders", nil)
	sr, sp := strings.NewReader(req), strings.NewReader(reply)
	br := bufio.NewReaderSize(sr, 4096)
	for _, c := range []struct {
		name string
		read func() error
	}{
		{"request/fast", func() error { _, err := ReadRequest(br); return err }},
		{"request/net-http", func() error { _, err := http.ReadRequest(br); return err }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sr.Reset(req)
				br.Reset(sr)
				if err := c.read(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	for _, c := range []struct {
		name string
		read func() error
	}{
		{"reply/fast", func() error { _, err := readResponse(br, post, nil); return err }},
		{"reply/net-http", func() error { _, err := http.ReadResponse(br, post); return err }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sp.Reset(reply)
				br.Reset(sp)
				if err := c.read(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
