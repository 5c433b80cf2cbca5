package oncehttp

import (
	"bufio"
	"bytes"
	"net/http"
	"strconv"
)

// Wire form: a request or a reply whose header section is plain (see
// fasthead.go), whose field names are already in their canonical form
// and which is buffered whole with its body, is scanned where it lies,
// without a header map, a string per field or a copy of the body; the
// request that goes on and the reply that comes back are then written
// from those spans, byte for byte as the reading and writing through
// http.Request, http.Response and WriteHeader would have written them.
// TestWireMatchesTheFullPath (package faults) holds the two to the same
// bytes.

// maxWireFields is how many fields a header section read in wire form
// may hold; one with more is read the usual way.
const maxWireFields = 48

// Field is one field of a header section read in wire form: its name,
// canonical, and its value without surrounding blanks, spans of the
// buffered bytes.
type Field struct {
	Name, Value []byte
}

// PlainHead is a plain header section read in wire form (ScanRequest,
// the reply given to Client.DoWire's callback). Its spans point into a
// reader's buffer: they hold until that reader is read again.
type PlainHead struct {
	// Start is the start line, without its CRLF.
	Start []byte
	// Length is the Content-Length, -1 when there is none.
	Length int64
	// Close: a Connection field carries the token "close".
	Close bool
	// Size is the length of the header section, its final empty line
	// included.
	Size int

	fields [maxWireFields]Field
	n      int
}

// Fields returns the section's fields, in the order they came.
func (h *PlainHead) Fields() []Field { return h.fields[:h.n] }

// Get returns the value of the first field named name (canonical), and
// whether there is one.
func (h *PlainHead) Get(name string) ([]byte, bool) {
	for _, f := range h.fields[:h.n] {
		if string(f.Name) == name {
			return f.Value, true
		}
	}
	return nil, false
}

// scan reads the header section at the start of b into h: false when b
// does not hold it whole, when it is not plain (see fasthead.go), when a
// field name is not canonical or when it has more than maxWireFields
// fields.
func (h *PlainHead) scan(b []byte) bool {
	end := bytes.Index(b, crlfcrlf)
	if end < 0 {
		return false
	}
	h.Size = end + 4
	b = b[:end+2]
	nl := bytes.IndexByte(b, '\n')
	if nl < 1 || b[nl-1] != '\r' {
		return false
	}
	h.Start = b[:nl-1]
	b = b[nl+1:]
	h.Length, h.Close, h.n = -1, false, 0
	for len(b) > 0 {
		nl := bytes.IndexByte(b, '\n')
		if nl < 1 || b[nl-1] != '\r' || h.n == maxWireFields {
			return false
		}
		line := b[:nl-1]
		b = b[nl+1:]
		colon := bytes.IndexByte(line, ':')
		if colon < 0 {
			return false
		}
		k, v := line[:colon], line[colon+1:]
		if !canonicalToken(k) || !plainValue(string(v)) {
			return false
		}
		v = trimBlankBytes(v)
		switch string(k) {
		case "Transfer-Encoding", "Trailer", "Pragma":
			return false
		case "Content-Length":
			if h.Length >= 0 || len(v) == 0 || len(v) > 18 {
				return false
			}
			h.Length = 0
			for _, c := range v {
				if !isDigit(c) {
					return false
				}
				h.Length = h.Length*10 + int64(c-'0')
			}
		case "Connection":
			h.Close = h.Close || hasToken(string(v), "close")
		}
		h.fields[h.n] = Field{Name: k, Value: v}
		h.n++
	}
	return true
}

// canonicalToken says whether k is a token in the form
// textproto.CanonicalMIMEHeaderKey gives it: a letter upper case at the
// start and after each '-', lower case elsewhere.
func canonicalToken(k []byte) bool {
	if len(k) == 0 {
		return false
	}
	upper := true
	for _, c := range k {
		if !tokenByte[c] {
			return false
		}
		if upper && 'a' <= c && c <= 'z' || !upper && 'A' <= c && c <= 'Z' {
			return false
		}
		upper = c == '-'
	}
	return true
}

func trimBlankBytes(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

// WireRequest is a request buffered whole and read in wire form by
// ScanRequest.
type WireRequest struct {
	PlainHead
	// Method and Target are the request line's method and
	// request-target, spans of it.
	Method, Target []byte
	// Body is the body (Content-Length bytes), a span of the buffer.
	Body []byte
}

// ScanRequest reads in wire form the request at the start of br's buffer,
// without reading br or the connection: false when the buffer does not
// hold it whole (its body included), or it is not plain, or a field name
// is not canonical, or it has more than a few dozen fields, or more than
// one Host field. Its spans hold until br is read; Discard(Size +
// len(Body)) consumes it.
func ScanRequest(br *bufio.Reader, r *WireRequest) bool {
	b, _ := br.Peek(br.Buffered())
	if !r.scan(b) {
		return false
	}
	method, rest, ok1 := bytes.Cut(r.Start, []byte(" "))
	target, proto, ok2 := bytes.Cut(rest, []byte(" "))
	if !ok1 || !ok2 || string(proto) != "HTTP/1.1" || !isToken(string(method)) ||
		string(method) == http.MethodConnect || string(method) == "PRI" {
		return false
	}
	hosts := 0
	for _, f := range r.Fields() {
		if string(f.Name) == "Host" {
			hosts++
		}
	}
	n := max(r.Length, 0)
	if hosts > 1 || int64(len(b)-r.Size) < n {
		return false
	}
	r.Method, r.Target = method, target
	r.Body = b[r.Size : r.Size+int(n)]
	return true
}

// scanReply reads in wire form the reply at the start of b, as
// fastResponse reads a reply: false unless it is a plain final reply
// (2xx to 5xx, not 204 or 304) with a Content-Length, not closing the
// connection, its body buffered whole and at most limit bytes long. code
// is its status; the body is b[h.Size:h.Size+h.Length].
func (h *PlainHead) scanReply(b []byte, limit int64) (code int, ok bool) {
	if !h.scan(b) || !bytes.HasPrefix(h.Start, []byte("HTTP/1.1 ")) {
		return 0, false
	}
	status := h.Start[len("HTTP/1.1 "):]
	if len(status) < 3 || len(status) > 3 && status[3] != ' ' ||
		status[0] < '2' || status[0] > '5' || !isDigit(status[1]) || !isDigit(status[2]) ||
		!plainValue(string(status)) {
		return 0, false
	}
	code = int(status[0]-'0')*100 + int(status[1]-'0')*10 + int(status[2]-'0')
	if code == http.StatusNoContent || code == http.StatusNotModified ||
		h.Length < 0 || h.Close || h.Length > limit || int64(len(b)-h.Size) < h.Length {
		return 0, false
	}
	return code, true
}

// AppendRequest appends to dst the header section of r sent on to host
// (a PlainHost) for requestURI, as writeRequest writes the request that
// net/http's ReadRequest reads from r, with that request-target and
// Host, without the fields skip reports, and with r's body (whose length
// its Content-Length line gives). The body itself is not appended.
func AppendRequest(dst []byte, r *WireRequest, requestURI []byte, host string, skip func(name []byte) bool) []byte {
	dst = append(dst, r.Method...)
	dst = append(dst, ' ')
	dst = append(dst, requestURI...)
	dst = append(dst, " HTTP/1.1\r\nHost: "...)
	dst = append(dst, host...)
	dst = append(dst, "\r\n"...)
	ua := []byte("Go-http-client/1.1")
	if v, ok := r.Get("User-Agent"); ok {
		ua = v
	}
	if len(ua) > 0 {
		dst = append(dst, "User-Agent: "...)
		dst = append(dst, ua...)
		dst = append(dst, "\r\n"...)
	}
	if m := string(r.Method); len(r.Body) > 0 || m == http.MethodPost || m == http.MethodPut || m == http.MethodPatch {
		dst = append(dst, "Content-Length: "...)
		dst = strconv.AppendInt(dst, int64(len(r.Body)), 10)
		dst = append(dst, "\r\n"...)
	}
	dst = AppendFields(dst, &r.PlainHead, func(k []byte) bool {
		switch string(k) {
		case "Host", "User-Agent", "Content-Length", "Transfer-Encoding", "Trailer":
			return true
		}
		return skip(k)
	})
	return append(dst, "\r\n"...)
}

// AppendFields appends h's fields but those skip reports, each line
// ending in CRLF, as WriteHeader writes a header: in the order of their
// names, the values of a name in the order they came.
func AppendFields(dst []byte, h *PlainHead, skip func(name []byte) bool) []byte {
	var order [maxWireFields]uint8
	n := 0
	for i, f := range h.Fields() {
		if skip(f.Name) {
			continue
		}
		// Insertion sort, stable: the fields are few.
		j := n
		for j > 0 && bytes.Compare(h.fields[order[j-1]].Name, f.Name) > 0 {
			order[j] = order[j-1]
			j--
		}
		order[j] = uint8(i)
		n++
	}
	for _, i := range order[:n] {
		f := h.fields[i]
		dst = append(dst, f.Name...)
		dst = append(dst, ": "...)
		dst = append(dst, f.Value...)
		dst = append(dst, "\r\n"...)
	}
	return dst
}

// PlainHost says whether host is a host[:port] that a request's Host line
// carries as it is (see AppendRequest).
func PlainHost(host string) bool { return plainHost(host) }
