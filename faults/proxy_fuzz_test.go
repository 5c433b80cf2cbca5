package faults_test

import (
	"io"
	"net"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/faults"
)

// FuzzProxyRawRequest: whatever bytes a client sends the fault proxy, it
// answers or drops the connection without a panic, and still passes the
// next good request on.
func FuzzProxyRawRequest(f *testing.F) {
	f.Add([]byte("POST /v1/orders?x=1 HTTP/1.1\r\nHost: a\r\n" + faults.AttemptHeader + ": a1\r\nContent-Length: 2\r\n\r\n{}"))
	f.Add([]byte("GET /%zz HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n"))
	f.Add([]byte("GET http://evil.example/ HTTP/1.1\r\nHost: evil.example\r\n\r\n"))
	f.Add([]byte("\x00\xff\r\n\r\n"))
	tg := newTarget(f, targetOpts{quiet: true})
	p := mustProxy(f, tg.srv.URL, 0)
	c := newClient(f, waitLimit)
	u, err := url.Parse(p.URL())
	if err != nil {
		f.Fatal(err)
	}
	p.Arm("armed", &faults.UnavailableBefore{})
	f.Fuzz(func(t *testing.T, raw []byte) {
		conn, err := net.Dial("tcp", u.Host)
		if err != nil {
			t.Fatal(err)
		}
		_ = conn.SetDeadline(time.Now().Add(2 * time.Second))
		_, _ = conn.Write(raw)
		_ = conn.(*net.TCPConn).CloseWrite()
		_, _ = io.Copy(io.Discard, io.LimitReader(conn, 4<<20))
		conn.Close()

		got, err := send(t, c, http.MethodPost, p.URL()+"/ok", "", "{}", nil)
		if err != nil || got.Status != http.StatusCreated {
			t.Fatalf("after %q the proxy no longer passes a good request: %v %d", raw, err, got.Status)
		}
	})
}
