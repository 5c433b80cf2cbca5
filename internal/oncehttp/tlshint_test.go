package oncehttp_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/idemcheck/idemcheck/internal/oncehttp"
)

// Each way a handshake fails for want of trust gets its own advice: a
// certificate for another name, a roots file that is missing or holds a
// key, an authority not trusted; any other error none.
func TestTLSHint(t *testing.T) {
	const unknown = "tls: failed to verify certificate: x509: certificate signed by unknown authority"
	t.Setenv("SSL_CERT_FILE", "")
	assert.Contains(t, oncehttp.TLSHint("tls: failed to verify certificate: x509: cannot validate certificate for 127.0.0.1 because it doesn't contain any IP SANs"),
		"does not name the URL's host")
	assert.Contains(t, oncehttp.TLSHint("x509: certificate is valid for localhost, not api.test"), "does not name the URL's host")
	assert.Contains(t, oncehttp.TLSHint(unknown), "trusted by naming that authority's certificate in SSL_CERT_FILE")
	assert.Empty(t, oncehttp.TLSHint("connection refused"))
	assert.Contains(t, oncehttp.TLSHint("x509: certificate is not valid for any names, but wanted to match localhost"), "does not name the URL's host")
	assert.Contains(t, oncehttp.TLSHint("x509: certificate relies on legacy Common Name field, use SANs instead"), "subject alternative names")
	assert.Contains(t, oncehttp.TLSHint("x509: certificate has expired or is not yet valid: current time …"), "renew it")

	dir := t.TempDir()
	t.Setenv("SSL_CERT_FILE", filepath.Join(dir, "missing.pem"))
	assert.Contains(t, oncehttp.TLSHint(unknown), "missing.pem, which cannot be read")
	key := filepath.Join(dir, "key.pem")
	assert.NoError(t, os.WriteFile(key, []byte("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"), 0o600))
	t.Setenv("SSL_CERT_FILE", key)
	assert.Contains(t, oncehttp.TLSHint(unknown), "key.pem, which holds no PEM certificate")
}

// A server's refusal of plain HTTP on its TLS port is told apart from any
// other 400.
func TestPlainToTLSHint(t *testing.T) {
	assert.Contains(t, oncehttp.PlainToTLSHint("Client sent an HTTP request to an HTTPS server.\n"), "https://")
	assert.Contains(t, oncehttp.PlainToTLSHint("<center>The plain HTTP request was sent to HTTPS port</center>"), "https://")
	assert.Empty(t, oncehttp.PlainToTLSHint(`{"error":"bad request"}`))
}
