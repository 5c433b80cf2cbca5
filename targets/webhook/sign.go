package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strconv"
	"time"
)

// The signature schemes.
const (
	SchemeStripe = "stripe"
	SchemeHex    = "hex"
	SchemeBase64 = "base64"
	SchemeNone   = "none"
)

// DefaultSignatureHeader is the header the signature goes in by default.
const DefaultSignatureHeader = "Idemcheck-Signature"

// Signature says how deliveries are signed.
type Signature struct {
	// Secret is the shared secret; required unless Scheme is "none".
	Secret string
	// Header carries the signature; empty means DefaultSignatureHeader.
	Header string
	// Scheme is "stripe" (default), "hex", "base64" or "none".
	Scheme string
	// Prefix starts a "hex" or "base64" signature, e.g. "sha256=".
	Prefix string
}

func (s *Signature) fill() error {
	if s.Header == "" {
		s.Header = DefaultSignatureHeader
	}
	if s.Scheme == "" {
		s.Scheme = SchemeStripe
	}
	switch s.Scheme {
	case SchemeStripe, SchemeHex, SchemeBase64:
		if s.Secret == "" {
			return fmt.Errorf("signature: a secret is required for scheme %q (or use scheme %q)", s.Scheme, SchemeNone)
		}
	case SchemeNone:
	default:
		return fmt.Errorf("signature: unknown scheme %q; want %s, %s, %s or %s", s.Scheme, SchemeStripe, SchemeHex, SchemeBase64, SchemeNone)
	}
	return nil
}

// Sign returns the signature header value for body, delivered at now,
// under secret.
func (s Signature) Sign(secret string, body []byte, now time.Time) string {
	mac := hmac.New(sha256.New, []byte(secret))
	switch s.Scheme {
	case SchemeNone:
		return ""
	case SchemeHex:
		mac.Write(body)
		return s.Prefix + hex.EncodeToString(mac.Sum(nil))
	case SchemeBase64:
		mac.Write(body)
		return s.Prefix + base64.StdEncoding.EncodeToString(mac.Sum(nil))
	}
	ts := strconv.FormatInt(now.Unix(), 10)
	mac.Write([]byte(ts + "."))
	mac.Write(body)
	return "t=" + ts + ",v1=" + hex.EncodeToString(mac.Sum(nil))
}

// wrongSecret is a secret that is not s: what a forger would sign with.
func wrongSecret(s string) string { return "not-" + s }
