package faults

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/internal/oncehttp"
)

// A request that passes through (no fault is armed for its attempt) and
// that came whole in the connection's buffer, plain (see
// internal/oncehttp's wire.go), is forwarded in wire form: its header
// section is scanned where it lies and the request that goes on is
// written from it, and the target's reply, when it too is plain and came
// whole, is written back from where it lies. No http.Request, header map
// or string per field is made, and the bytes are those the reading into
// an http.Request, forward and respond write
// (TestWireMatchesTheFullPath); anything else takes that full path.

// wireTarget is what the wire form needs of the target: its base path,
// and host for the Host line.
type wireTarget struct {
	u      *url.URL
	prefix string
	host   string
}

// newWireTarget returns the wire form's target for u, or nil when
// requests to u are written the full way: a host that a Host line does
// not carry as it is, a base path that makes every path begin with "//".
func newWireTarget(u *url.URL) *wireTarget {
	prefix := strings.TrimSuffix(u.EscapedPath(), "/")
	host := strings.TrimSuffix(u.Host, ":")
	if (u.Scheme != "http" && u.Scheme != "https") || !oncehttp.PlainHost(host) ||
		strings.HasPrefix(prefix, "//") || (prefix != "" && prefix[0] != '/') {
		return nil
	}
	return &wireTarget{u: u, prefix: prefix, host: host}
}

// wireState is what a served connection keeps for the exchanges in wire
// form, reused from one to the next.
type wireState struct {
	req   oncehttp.WireRequest
	uri   []byte
	head  []byte
	ctx   deadlineCtx
	reply func(code int, h *oncehttp.PlainHead, body []byte)
	// code is the status of the reply written in wire form.
	code int
}

// wireExchange runs the exchange of the request at the start of the
// connection's buffer in wire form when it can; it says whether it ran
// it, and whether the connection may carry another.
func (pc *proxyConn) wireExchange() (ran, keep bool) {
	p := pc.p
	if p.wire == nil {
		return false, false
	}
	if pc.w == nil {
		pc.w, _ = wirePool.Get().(*wireState)
		if pc.w == nil {
			pc.w = &wireState{}
		}
		pc.w.reply = pc.writeWireReply
		// Set once: what a forward's context gives (Value) outlives the
		// forward in a name lookup left running; only the deadline moves.
		pc.w.ctx.Context = context.Background()
	}
	w := pc.w
	r := &w.req
	if !oncehttp.ScanRequest(pc.br, r) || string(r.Method) == http.MethodHead {
		return false, false
	}
	for _, f := range r.Fields() {
		if hopHeader(string(f.Name)) || string(f.Name) == "Expect" {
			return false, false
		}
	}
	var ok bool
	if w.uri, ok = appendRequestURI(w.uri[:0], p.wire.prefix, r.Target); !ok {
		return false, false
	}
	id, _ := r.Get(AttemptHeader)
	p.mu.Lock()
	pe := p.pending[string(id)]
	if pe != nil {
		switch {
		case pe.claimed:
			pe = nil // the same attempt id again: pass it through, unreported
		case pe.fault != nil:
			p.mu.Unlock()
			return false, false
		default:
			pe.claimed = true
		}
	}
	p.mu.Unlock()

	w.head = oncehttp.AppendRequest(w.head[:0], r, w.uri, p.wire.host, isAttemptHeader)
	w.ctx.deadline = time.Now().Add(p.timeout)
	ex := exchange{p: p}
	resp, err := p.client.DoWire(&w.ctx, p.wire.u, w.head, r.Body, MaxReplyBody, w.reply)
	keep = true
	if err == nil && resp == nil {
		// Written back in wire form, not yet flushed.
		ex.report.Forwarded = true
		ex.report.UpstreamStatus = w.code
		keep = pc.bw.Flush() == nil
	} else if up, err := ex.upstream(&w.ctx, resp, err); err != nil {
		status, h, body := proxyError(err)
		keep = writeReply(pc.bw, status, h, body, true, false)
	} else {
		keep = writeReply(pc.bw, up.Status, up.Header, up.Body, true, false)
	}
	if pe != nil {
		pe.report = ex.report
		close(pe.done)
	}
	_, _ = pc.br.Discard(r.Size + len(r.Body))
	if wireRan != nil {
		wireRan(resp == nil && err == nil)
	}
	return true, keep
}

// wireRan, set by tests, is told of each exchange run in wire form, and
// whether its reply was read in wire form too.
var wireRan func(replyToo bool)

func isAttemptHeader(k []byte) bool { return string(k) == AttemptHeader }

// writeWireReply writes the target's reply, read in wire form, to the
// client as writeReply would have written it (not flushed).
func (pc *proxyConn) writeWireReply(code int, h *oncehttp.PlainHead, body []byte) {
	bw := pc.bw
	pc.w.code = code
	writeStatusLine(bw, code)
	writeLength(bw, len(body))
	if len(body) > 0 {
		if v, _ := h.Get("Content-Type"); len(v) == 0 {
			_, _ = bw.WriteString("Content-Type: ")
			_, _ = bw.WriteString(http.DetectContentType(body))
			_, _ = bw.WriteString("\r\n")
		}
	}
	_, _ = bw.Write(oncehttp.AppendFields(bw.AvailableBuffer(), h, skippedWireReplyField))
	_, _ = bw.WriteString("\r\n")
	_, _ = bw.Write(body)
}

// skippedWireReplyField says whether a field of the target's reply is
// left out of the reply passed on: the hop-by-hop fields, which the full
// path deletes, and Content-Length, which the proxy writes itself.
func skippedWireReplyField(k []byte) bool {
	return hopHeader(string(k)) || string(k) == "Content-Length"
}

// appendRequestURI appends to dst the request-target that goes on to the
// target for the client's, target, behind the target's base path prefix,
// as outgoing makes it from the path and query that url.ParseRequestURI
// reads from target; false when that is not target's path as it is (a
// byte url.URL.EscapedPath would escape, a '%' not followed by two hex
// digits, a control byte) or the path does not begin with one '/'.
func appendRequestURI(dst []byte, prefix string, target []byte) ([]byte, bool) {
	path, query := target, []byte(nil)
	if i := bytes.IndexByte(target, '?'); i >= 0 {
		path, query = target[:i], target[i+1:]
	}
	if len(path) == 0 || path[0] != '/' || prefix == "" && len(path) > 1 && path[1] == '/' {
		return dst, false
	}
	for i := 0; i < len(path); i++ {
		c := path[i]
		if c == '%' {
			if i+2 >= len(path) || !isHex(path[i+1]) || !isHex(path[i+2]) {
				return dst, false
			}
			continue
		}
		if !pathByte[c] {
			return dst, false
		}
	}
	for _, c := range query {
		if c < ' ' || c == 0x7f {
			return dst, false
		}
	}
	dst = append(dst, prefix...)
	dst = append(dst, path...)
	if len(query) > 0 {
		dst = append(dst, '?')
		dst = append(dst, query...)
	}
	return dst, true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// pathByte marks the bytes of a path that url.URL.EscapedPath leaves as
// they are: unreserved, sub-delimiters, ':', '@', '/', '[' and ']'.
var pathByte = func() (t [256]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
		t[c-'a'+'A'] = true
	}
	for _, c := range "-._~!$&'()*+,;=:@/[]" {
		t[c] = true
	}
	return t
}()
