package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunOverHTTPS: a target served over TLS is tested at its https://
// URL, every call, burst and read-back verified against the system's
// roots (here the test server's certificate, named by SSL_CERT_FILE): a
// correct API passes, one that forgets its keys is caught, and one that
// cannot be reached over TLS is untestable, with what to do: trust its
// certificate, write the name the certificate was issued for, or write
// the URL with https://.
func TestRunOverHTTPS(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		flawed  bool
		trusted bool // the certificate named by SSL_CERT_FILE
		// localhost serves a certificate that names "localhost" only;
		// byAddress then writes the URL with 127.0.0.1.
		localhost, byAddress bool
		// plain writes the URL with http://, to the TLS port.
		plain bool
		want  int
		// wantErr is what the error of an untestable target says.
		wantErr []string
	}{
		{name: "correct", trusted: true, want: exitOK},
		{name: "forgets its keys", flawed: true, trusted: true, want: exitBelow},
		{name: "not trusted", want: exitHarness, wantErr: []string{"TLS handshake", "SSL_CERT_FILE"}},
		// A development certificate names "localhost" only: the name is
		// what the certificate is checked against, so it stays the name.
		{name: "certificate for localhost", trusted: true, localhost: true, want: exitOK},
		// The same certificate at https://127.0.0.1: it is trusted, but
		// does not name the address, and the hint says so.
		{name: "certificate for localhost, URL by address", trusted: true, localhost: true, byAddress: true, want: exitHarness,
			wantErr: []string{"TLS handshake", "does not name the URL's host"}},
		// http:// to the TLS port: the server's refusal of plain HTTP
		// is told as what it is.
		{name: "plain http to the TLS port", trusted: true, plain: true, want: exitHarness, wantErr: []string{"write the URL with https://"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			api := newCountingAPI()
			api.forgetKeys = tc.flawed
			var srv *httptest.Server
			var url string
			if tc.localhost {
				srv, url = localhostTLSServer(t, api)
			} else {
				srv = httptest.NewTLSServer(api)
				url = srv.URL
			}
			defer srv.Close()
			if tc.byAddress {
				url = strings.Replace(url, "localhost", "127.0.0.1", 1)
			}
			if tc.plain {
				url = strings.Replace(url, "https://", "http://", 1)
			}
			cfg := filepath.Join(t.TempDir(), "idemcheck.yaml")
			require.NoError(t, os.WriteFile(cfg, []byte(fmt.Sprintf(`version: 1
targets:
  - name: tls-api
    kind: http
    url: %q
    dry_run: {query: dry_run}
    observe:
      - {name: api, http: {path: "/v1/orders?search={{marker}}", items: data}}
    operations:
      - {name: create-order, mutating: true, method: POST, path: /v1/orders, body: '{"note":"order {{marker}} {{input.n}}"}', inputs: {n: {int: [1, 9]}}}
`, url)), 0o644))

			code, tr, _ := runOverTLS(t, srv, cfg, tc.trusted)
			if len(tc.wantErr) > 0 {
				assert.Equal(t, tc.want, code)
				for _, w := range tc.wantErr {
					assert.Contains(t, tr["error"], w, "said before the run, as what it is, with what to do")
				}
				return
			}
			require.Empty(t, tr["error"], "the target is reached over TLS")
			assert.Equal(t, tc.want, code, "score %v, findings %v", tr["score"], tr["findings"])
			if !tc.flawed {
				assert.Equal(t, float64(3), tr["score"])
				return
			}
			var checks []string
			for _, f := range tr["findings"].([]any) {
				checks = append(checks, f.(map[string]any)["check"].(string))
			}
			assert.Contains(t, checks, "retry.sequential", "a key sent twice acted twice")
			assert.Contains(t, checks, "concurrent.duplicates", "the burst went over TLS too")
		})
	}
}

// runOverTLS runs the program on cfg (five trials, seed 7), with srv's
// certificate named by SSL_CERT_FILE when trusted, and returns its exit
// code, its one target's JSON report, and what it printed on stderr.
func runOverTLS(t *testing.T, srv *httptest.Server, cfg string, trusted bool) (int, map[string]any, string) {
	t.Helper()
	env := append(os.Environ(), "IDEMCHECK_TEST_MAIN=1")
	if trusted {
		roots := filepath.Join(t.TempDir(), "roots.pem")
		require.NoError(t, os.WriteFile(roots, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644))
		env = append(env, "SSL_CERT_FILE="+roots)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "run", "-c", cfg, "--trials", "5", "--seed", "7", "--format", "json")
	cmd.Env = env
	cmd.WaitDelay = 10 * time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else {
		require.NoError(t, err)
	}
	var rep map[string]any
	require.NoError(t, json.Unmarshal(out, &rep), "%s\n%s", out, stderr.String())
	return code, targetReport(t, rep), stderr.String()
}

// localhostTLSServer serves h over TLS with a self-signed certificate
// that names "localhost" and nothing else, as a development certificate
// does, and returns the server and its https://localhost:PORT URL.
func localhostTLSServer(t *testing.T, h http.Handler) (*httptest.Server, string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "localhost"},
		DNSNames:              []string{"localhost"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	srv := httptest.NewUnstartedServer(h)
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
	srv.StartTLS()
	_, port, err := net.SplitHostPort(srv.Listener.Addr().String())
	require.NoError(t, err)
	return srv, "https://localhost:" + port
}
