package oncehttp

import (
	"bytes"
	"os"
	"strings"
)

// TLSHint says what to do about a TLS handshake that failed with err (its
// text): a certificate issued for other names than the URL's host, or
// out of its dates, a roots file (SSL_CERT_FILE) that cannot be read or holds no certificate,
// or a certificate the system's roots do not vouch for. It is "" for any
// other error, and otherwise starts with a space, to follow the error.
func TLSHint(err string) string {
	switch {
	case strings.Contains(err, "x509: cannot validate certificate for") || strings.Contains(err, "x509: certificate is valid for") ||
		strings.Contains(err, "x509: certificate is not valid for any names"):
		return " (the certificate does not name the URL's host: write the URL with a name it was issued for, such as https://localhost:PORT for a development certificate issued for localhost)"
	case strings.Contains(err, "legacy Common Name field"):
		return " (the certificate names its host only in its Common Name, which is no longer read: issue it with the name in its subject alternative names)"
	case strings.Contains(err, "x509: certificate has expired or is not yet valid"):
		return " (the certificate has expired, or is not valid yet: renew it, or check the machine's clock)"
	case !strings.Contains(err, "x509:"):
		return ""
	}
	if f := os.Getenv("SSL_CERT_FILE"); f != "" {
		b, rerr := os.ReadFile(f)
		switch {
		case rerr != nil:
			return " (SSL_CERT_FILE names " + f + ", which cannot be read: " + rerr.Error() + ")"
		case !bytes.Contains(b, []byte("-----BEGIN CERTIFICATE-----")):
			return " (SSL_CERT_FILE names " + f + ", which holds no PEM certificate: name the certificate, or its authority's, not a key)"
		}
	}
	return " (a certificate of a private authority is trusted by naming that authority's certificate in SSL_CERT_FILE, or a directory of them in SSL_CERT_DIR)"
}

// PlainToTLSHint says, when a reply's body (body) is a server's refusal
// of plain HTTP on a port that speaks TLS, to write the URL with
// https://; "" otherwise. It starts with a space, to follow the error.
func PlainToTLSHint(body string) string {
	for _, said := range []string{
		"Client sent an HTTP request to an HTTPS server", // Go's net/http
		"The plain HTTP request was sent to HTTPS port",  // nginx
		"speaking plain HTTP to an SSL-enabled server",   // Apache
	} {
		if strings.Contains(body, said) {
			return " (the server speaks TLS on that port: write the URL with https://)"
		}
	}
	return ""
}
