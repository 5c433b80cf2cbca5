package oncehttp

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"net/textproto"
	"net/url"
	"strings"
)

// Reading a request or a reply whose header section is plain takes one
// scan of the bytes already buffered and a handful of allocations, where
// net/http's ReadRequest and ReadResponse take a line at a time and a
// string per field. Plain means: HTTP/1.1; every line ends in CRLF; every
// field name is a token and every value free of control characters; no
// Transfer-Encoding, Trailer or Pragma field, at most one Content-Length
// made of digits; a request neither CONNECT nor PRI, with one Host field
// at most; a reply final (2xx to 5xx, not 204 or 304), to a request other
// than HEAD, with a Content-Length and without "Connection: close". Any
// other header section, and one not yet buffered whole, is read by
// net/http, from the same bytes: what the fast path returns is what
// net/http would have returned (FuzzFastHeadMatchesNetHTTP compares the
// two).

var crlfcrlf = []byte("\r\n\r\n")

// ReadRequest reads a request from br as http.ReadRequest does, and
// returns what it would: a plain header section already buffered whole is
// read without it (see above). One difference: the Close of the body of a
// request so read does not read what is left of it; read it to its end
// before reading the next request.
func ReadRequest(br *bufio.Reader) (*http.Request, error) {
	if br.Buffered() == 0 {
		// bufio hands a read error out once: return it as net/http's
		// first ReadLine would have, not read the connection again.
		if _, err := br.Peek(1); err != nil {
			return nil, err
		}
	}
	if req := fastRequest(br); req != nil {
		return req, nil
	}
	return http.ReadRequest(br)
}

// readResponse reads a reply to req from br as http.ReadResponse does.
// When wire is set and takes the reply (see Client.DoWire) once its
// first bytes are buffered, it returns nil and no error.
func readResponse(br *bufio.Reader, req *http.Request, wire func(*bufio.Reader) bool) (*http.Response, error) {
	if br.Buffered() == 0 {
		if _, err := br.Peek(1); err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
	if wire != nil && wire(br) {
		return nil, nil
	}
	if resp := fastResponse(br, req); resp != nil {
		return resp, nil
	}
	return http.ReadResponse(br, req)
}

// bufferedHead returns the header section at the start of br's buffer,
// start line included and the final empty line left out, and its length
// with that line; "" when the buffer does not hold it whole.
func bufferedHead(br *bufio.Reader) (string, int) {
	b, _ := br.Peek(br.Buffered())
	end := bytes.Index(b, crlfcrlf)
	if end < 0 {
		return "", 0
	}
	return string(b[:end+2]), end + 4
}

// fastRequest is ReadRequest's fast path: nil when the request is not
// plain, and nothing read then.
func fastRequest(br *bufio.Reader) *http.Request {
	s, n := bufferedHead(br)
	if n == 0 {
		return nil
	}
	nl := strings.Index(s, "\r\n")
	method, rest, ok1 := strings.Cut(s[:nl], " ")
	uri, proto, ok2 := strings.Cut(rest, " ")
	if !ok1 || !ok2 || proto != "HTTP/1.1" || !isToken(method) ||
		method == http.MethodConnect || method == "PRI" {
		return nil
	}
	u, err := url.ParseRequestURI(uri)
	if err != nil {
		return nil
	}
	h, f, ok := parseFields(s[nl+2:])
	if !ok || len(h["Host"]) > 1 {
		return nil
	}
	host := u.Host
	if host == "" && len(h["Host"]) == 1 {
		host = h["Host"][0]
	}
	delete(h, "Host")
	req := &http.Request{Method: method, URL: u, Proto: proto, ProtoMajor: 1, ProtoMinor: 1,
		Header: h, Body: http.NoBody, Close: f.close, Host: host, RequestURI: uri}
	if f.length > 0 {
		req.ContentLength = f.length
		req.Body = &fixedBody{r: br, n: f.length}
	}
	_, _ = br.Discard(n)
	return req
}

// fastResponse is readResponse's fast path: nil when the reply is not
// plain, and nothing read then.
func fastResponse(br *bufio.Reader, req *http.Request) *http.Response {
	if req != nil && req.Method == http.MethodHead {
		return nil
	}
	s, n := bufferedHead(br)
	if n == 0 || !strings.HasPrefix(s, "HTTP/1.1 ") {
		return nil
	}
	nl := strings.Index(s, "\r\n")
	status := s[len("HTTP/1.1 "):nl]
	if len(status) < 3 || len(status) > 3 && status[3] != ' ' ||
		status[0] < '2' || status[0] > '5' || !isDigit(status[1]) || !isDigit(status[2]) ||
		!plainValue(status) {
		return nil
	}
	code := int(status[0]-'0')*100 + int(status[1]-'0')*10 + int(status[2]-'0')
	if code == http.StatusNoContent || code == http.StatusNotModified {
		return nil
	}
	h, f, ok := parseFields(s[nl+2:])
	if !ok || f.length < 0 || f.close {
		return nil
	}
	resp := &http.Response{Status: status, StatusCode: code, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: h, Body: http.NoBody, ContentLength: f.length, Request: req}
	if f.length > 0 {
		resp.Body = &fixedBody{r: br, n: f.length}
	}
	_, _ = br.Discard(n)
	return resp
}

// fields is what parseFields notes of a header section.
type fields struct {
	// length is the Content-Length, -1 without one.
	length int64
	// close: a Connection field carries the token "close".
	close bool
}

// parseFields parses s, field lines each ending in CRLF, into a header;
// false when a line is not plain (see above).
func parseFields(s string) (http.Header, fields, bool) {
	f := fields{length: -1}
	lines := strings.Count(s, "\n")
	if lines > MaxHeaderLines {
		return nil, f, false
	}
	h := make(http.Header, lines)
	vals := make([]string, lines) // one backing array for every first value
	for s != "" {
		nl := strings.IndexByte(s, '\n')
		if nl < 1 || s[nl-1] != '\r' {
			return nil, f, false
		}
		line := s[:nl-1]
		s = s[nl+1:]
		k, v, ok := strings.Cut(line, ":")
		if !ok || !isToken(k) || !plainValue(v) {
			return nil, f, false
		}
		v = trimBlanks(v)
		key := textproto.CanonicalMIMEHeaderKey(k)
		switch key {
		case "Transfer-Encoding", "Trailer", "Pragma":
			return nil, f, false
		case "Content-Length":
			if f.length >= 0 || len(v) == 0 || len(v) > 18 {
				return nil, f, false
			}
			f.length = 0
			for i := 0; i < len(v); i++ {
				if !isDigit(v[i]) {
					return nil, f, false
				}
				f.length = f.length*10 + int64(v[i]-'0')
			}
		case "Connection":
			f.close = f.close || hasToken(v, "close")
		}
		if vv := h[key]; vv != nil {
			h[key] = append(vv, v)
		} else {
			vals[0] = v
			h[key] = vals[:1:1]
			vals = vals[1:]
		}
	}
	return h, f, true
}

// hasToken says whether v, a comma-separated list, holds token (in any
// case).
func hasToken(v, token string) bool {
	for v != "" {
		var item string
		item, v, _ = strings.Cut(v, ",")
		if asciiEqualFold(strings.Trim(item, " \t"), token) {
			return true
		}
	}
	return false
}

// trimBlanks is s without its leading and trailing spaces and tabs
// (strings.Trim with a cut set does more work per call).
func trimBlanks(s string) string {
	for s != "" && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	for s != "" && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	return s
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// isToken says whether s is a non-empty token (RFC 9110, section 5.6.2).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !tokenByte[s[i]] {
			return false
		}
	}
	return true
}

// plainValue says whether s holds no control character but tabs.
func plainValue(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// tokenByte marks the bytes a token may hold.
var tokenByte = func() (t [256]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
		t[c-'a'+'A'] = true
	}
	for _, c := range "!#$%&'*+-.^_`|~" {
		t[c] = true
	}
	return t
}()

// fixedBody is a body of a known length n, read from r, as net/http's:
// a connection that ends before n bytes gives io.ErrUnexpectedEOF, and
// io.EOF after that; the last bytes come with io.EOF unless the read that
// brought them failed; a read after Close fails. Close reads nothing of
// what is left (net/http's reads it): the callers read a body to its end,
// or close the connection.
type fixedBody struct {
	r      *bufio.Reader
	n      int64
	sawEOF bool
	closed bool
}

func (b *fixedBody) Read(p []byte) (int, error) {
	if b.closed {
		return 0, http.ErrBodyReadAfterClose
	}
	if b.sawEOF || b.n <= 0 {
		b.sawEOF = true
		return 0, io.EOF
	}
	if int64(len(p)) > b.n {
		p = p[:b.n]
	}
	n, err := b.r.Read(p)
	b.n -= int64(n)
	if err == io.EOF {
		b.sawEOF = true
		if b.n > 0 {
			err = io.ErrUnexpectedEOF
		}
	}
	if err == nil && n > 0 && b.n == 0 {
		err = io.EOF
		b.sawEOF = true
	}
	return n, err
}

// Close implements io.Closer; it reads nothing.
func (b *fixedBody) Close() error {
	b.closed = true
	return nil
}

// asciiEqualFold is httpguts' tokenEqual: ASCII case folding only (not
// strings.EqualFold's Unicode folding, under which "clo\u017fe" is "close").
func asciiEqualFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
