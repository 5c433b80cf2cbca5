package oncehttp_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/internal/oncehttp"
)

// TestHTTPSOverTLS: an https:// request is sent over TLS, verified
// against the roots the client is given, and its connection is kept for
// the next request as a plain one is; a server the roots do not vouch for
// is refused before a byte of the request goes out.
func TestHTTPSOverTLS(t *testing.T) {
	t.Parallel()
	var conns, requests atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		b, _ := io.ReadAll(r.Body)
		_, _ = io.WriteString(w, r.Proto+" "+string(b))
	}))
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			conns.Add(1)
		}
	}
	srv.StartTLS()
	defer srv.Close()
	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())

	c := &oncehttp.Client{TLS: &tls.Config{RootCAs: roots}}
	defer c.Close()
	for i := range 3 {
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/x", strings.NewReader("hello"))
		require.NoError(t, err)
		resp, err := c.Do(req, false)
		require.NoError(t, err, "request %d", i)
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		assert.Equal(t, "HTTP/1.1 hello", string(b), "HTTP/1.1 over TLS, the body whole")
	}
	assert.EqualValues(t, 3, requests.Load())
	assert.EqualValues(t, 1, conns.Load(), "the connection is kept alive over TLS too")

	untrusting := &oncehttp.Client{} // the system's roots: not the test server's
	defer untrusting.Close()
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/x", strings.NewReader("hello"))
	require.NoError(t, err)
	_, err = untrusting.DoContext(context.Background(), req, false)
	require.Error(t, err)
	var cerr *tls.CertificateVerificationError
	assert.True(t, errors.As(err, &cerr), "a certificate the roots do not vouch for: %v", err)
	assert.False(t, oncehttp.Dialed(err), "refused in the handshake, before the request")
	assert.EqualValues(t, 3, requests.Load(), "the server never got it")
}
