package oncehttp

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"net/textproto"
	"slices"
	"strconv"
	"strings"
)

// writeRequest writes req to bw as net/http's Request.Write does (the
// same lines, in the same order), without its formatting and
// allocations, for the common request: a known length, no trailer, no
// Transfer-Encoding, no Close, an ASCII host. It leaves any other to
// Request.Write. It does not flush bw.
func writeRequest(bw *bufio.Writer, req *http.Request) error {
	host := req.Host
	if host == "" {
		host = req.URL.Host
	}
	bodyless := req.Body == nil || req.Body == http.NoBody
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	if len(req.TransferEncoding) > 0 || req.Trailer != nil || req.Close || method == http.MethodConnect ||
		(bodyless && req.ContentLength != 0) || (!bodyless && req.ContentLength <= 0) ||
		!plainHost(host) || !ValidHeaderName(method) {
		return req.Write(bw)
	}
	ruri := req.URL.RequestURI()
	for i := 0; i < len(ruri); i++ {
		if ruri[i] < ' ' || ruri[i] == 0x7f {
			return req.Write(bw) // which refuses it
		}
	}
	_, _ = bw.WriteString(method)
	_ = bw.WriteByte(' ')
	_, _ = bw.WriteString(ruri)
	_, _ = bw.WriteString(" HTTP/1.1\r\nHost: ")
	_, _ = bw.WriteString(host)
	_, _ = bw.WriteString("\r\n")
	ua := "Go-http-client/1.1"
	if _, ok := req.Header["User-Agent"]; ok {
		ua = req.Header.Get("User-Agent")
	}
	if ua != "" {
		_, _ = bw.WriteString("User-Agent: ")
		_, _ = bw.WriteString(cleanValue(ua))
		_, _ = bw.WriteString("\r\n")
	}
	if req.ContentLength > 0 || method == http.MethodPost || method == http.MethodPut || method == http.MethodPatch {
		_, _ = bw.WriteString("Content-Length: ")
		_, _ = bw.Write(strconv.AppendInt(bw.AvailableBuffer(), req.ContentLength, 10))
		_, _ = bw.WriteString("\r\n")
	}
	WriteHeader(bw, req.Header, requestHeaderWritten)
	_, err := bw.WriteString("\r\n")
	if bodyless {
		return err
	}
	defer req.Body.Close()
	if err != nil {
		return err
	}
	if hb, ok := req.Body.(*HeldBody); ok {
		// Held whole: written from where it is, as the copy below would.
		rest := hb.Rest()
		if int64(len(rest)) != req.ContentLength {
			return fmt.Errorf("http: ContentLength=%d with Body length %d", req.ContentLength, len(rest))
		}
		_, err := bw.Write(rest)
		return err
	}
	n, err := io.Copy(bw, io.LimitReader(req.Body, req.ContentLength))
	if err == nil && n == req.ContentLength {
		var extra int64
		extra, err = io.Copy(io.Discard, req.Body)
		n += extra
	}
	if err != nil {
		return err
	}
	if n != req.ContentLength {
		return fmt.Errorf("http: ContentLength=%d with Body length %d", req.ContentLength, n)
	}
	return nil
}

// requestHeaderWritten says whether writeRequest writes header k itself,
// or not at all, as Request.Write does.
func requestHeaderWritten(k string) bool {
	switch k {
	case "Host", "User-Agent", "Content-Length", "Transfer-Encoding", "Trailer":
		return true
	}
	return false
}

// plainHost says whether host is a host[:port] of ASCII letters, digits,
// dots, dashes and colons (an IPv6 address in brackets included, without
// a zone): one that Request.Write would write unchanged.
func plainHost(host string) bool {
	if host == "" {
		return false
	}
	for i := 0; i < len(host); i++ {
		c := host[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			c == '.' || c == '-' || c == ':' || c == '[' || c == ']') {
			return false
		}
	}
	return true
}

// ValidHeaderName says whether k is a token (RFC 9110), as a header's
// name and a method must be: net/http drops headers with other names
// when it writes them.
func ValidHeaderName(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

// newlines are replaced with spaces in header values, as net/http does
// when it writes a header.
var newlines = strings.NewReplacer("\n", " ", "\r", " ")

// cleanValue is v as net/http writes a header value: line breaks made
// spaces, surrounding blanks trimmed.
func cleanValue(v string) string {
	if strings.ContainsAny(v, "\r\n") {
		v = newlines.Replace(v)
	}
	return textproto.TrimString(v)
}

// WriteHeader writes the fields of h to bw as net/http's
// Header.WriteSubset does, without its allocations: in the order of
// their names, those whose names are not tokens or skip reports left
// out, values cleaned of line breaks.
func WriteHeader(bw *bufio.Writer, h http.Header, skip func(string) bool) {
	var keyArray [32]string
	keys := keyArray[:0]
	for k := range h {
		if !skip(k) && ValidHeaderName(k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		for _, v := range h[k] {
			_, _ = bw.WriteString(k)
			_, _ = bw.WriteString(": ")
			_, _ = bw.WriteString(cleanValue(v))
			_, _ = bw.WriteString("\r\n")
		}
	}
}
