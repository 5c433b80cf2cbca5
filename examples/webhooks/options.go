package webhooks

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"time"
)

// Defaults of Options.
const (
	DefaultListen  = "127.0.0.1:0"
	DefaultLease   = 30 * time.Second
	DefaultLRUSize = 10000
	// Path is the endpoint events are delivered to.
	Path = "/webhooks/payments"
	// SignatureHeader carries the Stripe-style signature.
	SignatureHeader = "Idemcheck-Signature"
	// Tolerance is how old a signature's timestamp may be.
	Tolerance = 5 * time.Minute
)

// Options configure one handler.
type Options struct {
	// Profile is one of Profiles.
	Profile string
	// Listen is the loopback address to serve on; empty means
	// DefaultListen.
	Listen string
	// PaymentsURL is the payments fake's base URL.
	PaymentsURL string
	// Secret is the shared signing secret; required (no-signature
	// included: it is configured, just never checked).
	Secret string
	// StateDir survives restarts (the harness passes {{state_dir}}); the
	// durable profiles keep their event records there. Empty means a
	// temporary directory removed at exit: nothing survives a restart.
	StateDir string
	// Lease bounds how long a claim on an event holds while its process
	// lives; zero means DefaultLease.
	Lease time.Duration
	// LRUSize is lru-memory's capacity; zero means DefaultLRUSize.
	LRUSize int
	// Now is the clock (signature tolerance, leases); nil means time.Now.
	Now func() time.Time
}

func (o *Options) resolve() (profile, error) {
	p, err := lookup(o.Profile)
	if err != nil {
		return profile{}, err
	}
	if o.Listen == "" {
		o.Listen = DefaultListen
	}
	if err := checkLoopback(o.Listen); err != nil {
		return profile{}, err
	}
	u, err := url.Parse(o.PaymentsURL)
	switch {
	case o.PaymentsURL == "":
		return profile{}, fmt.Errorf("the payments URL is required (--payments or $PAYMENTS_URL), e.g. http://127.0.0.1:4242")
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return profile{}, fmt.Errorf("payments URL %q must be an absolute http(s) URL, e.g. http://127.0.0.1:4242", o.PaymentsURL)
	}
	if o.Secret == "" {
		return profile{}, fmt.Errorf("the signing secret is required (--secret or $WEBHOOK_SECRET)")
	}
	if o.StateDir != "" {
		if fi, err := os.Stat(o.StateDir); err == nil && !fi.IsDir() {
			return profile{}, fmt.Errorf("state directory %q is a file; give a directory (it is created if missing)", o.StateDir)
		}
	}
	switch {
	case o.Lease == 0:
		o.Lease = DefaultLease
	case o.Lease < 0:
		return profile{}, fmt.Errorf("lease %v is negative; want a duration such as 30s", o.Lease)
	}
	switch {
	case o.LRUSize == 0:
		o.LRUSize = DefaultLRUSize
	case o.LRUSize < 0:
		return profile{}, fmt.Errorf("lru size %d is negative; want a capacity such as %d", o.LRUSize, DefaultLRUSize)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return p, nil
}

func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("listen address %q: %v; want host:port, e.g. %s", addr, err, DefaultListen)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("listen address %q is not loopback: the handler is a test target; use 127.0.0.1, [::1] or localhost", addr)
}
