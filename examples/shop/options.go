package shop

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"time"
)

// DefaultListen is where the shop listens unless told otherwise: loopback,
// on a port the kernel picks.
const DefaultListen = "127.0.0.1:0"

// Options configure one shop.
type Options struct {
	// Profile is one of Profiles: which idempotency strategy (and which
	// planted flaw) the shop runs with.
	Profile string
	// Listen is the address to serve on, e.g. "127.0.0.1:0". It must be
	// loopback: the shop is a test target. Empty means DefaultListen.
	Listen string
	// PaymentsURL is the base URL of the payments fake, e.g.
	// http://127.0.0.1:4242; the shop posts charges to PaymentsURL/v1/charges.
	PaymentsURL string
	// StateDir is a directory that survives restarts (the harness passes
	// {{state_dir}}); it is created if missing. Durable profiles keep their
	// idempotency key store there (StoreFile) and load it at start; the
	// others (nokey, memory-cache) ignore it. Empty means no durable
	// state: every profile forgets its keys when the process ends.
	StateDir string
	// EmailURL, if set, is the base URL of the email fake's HTTP send API
	// (SendGrid-like, e.g. http://127.0.0.1:4243): every created order
	// then also sends its confirmation email there, with the charge's
	// key passed on as the Idempotency-Key. Empty means no email, and the
	// shop behaves exactly as without this option.
	EmailURL string
	// EmailWithoutKey sends the confirmation email without the client's
	// key: a planted flaw. The charge is still made under the key, so a
	// retry after an email that was sent but never confirmed (a reset, a
	// crash after the send) finds the charge replayed and sends the email
	// again.
	EmailWithoutKey bool
	// Window is the check-then-act profile's gap between looking a key up
	// and charging, a busy wait; zero means DefaultWindow (ask for 1ns for
	// next to no gap). Other profiles ignore it.
	Window time.Duration
	// Redis is the loopback address (host:port) of the Redis server the
	// redis-* profiles keep their keys in; the others ignore it.
	Redis string
	// Instance numbers this shop among several serving one store (0 for
	// the first or only one): its ids are drawn from a range of their own,
	// so that two instances never hand out the same order id.
	Instance int

	// Keys is how many keys the bounded-keys profile keeps; zero means
	// DefaultKeys. TTL is how long the expiring-keys profile keeps a key;
	// zero means DefaultTTL. Other profiles ignore them.
	Keys int
	TTL  time.Duration
}

// The retention of the forgetful profiles unless told otherwise.
const (
	DefaultKeys = 64
	DefaultTTL  = time.Second
)

// maxInstance bounds Instance: each instance's ids have a range of their
// own within what an int holds.
const maxInstance = 20

// maxWindow bounds Window: a request spins for that long.
const maxWindow = 10 * time.Second

// resolve checks the options and returns the profile they name.
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
	if o.EmailURL != "" {
		if u, err := url.Parse(o.EmailURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return profile{}, fmt.Errorf("email URL %q must be an absolute http(s) URL, e.g. http://127.0.0.1:4243", o.EmailURL)
		}
	}
	if o.StateDir != "" {
		if fi, err := os.Stat(o.StateDir); err == nil && !fi.IsDir() {
			return profile{}, fmt.Errorf("state directory %q is a file; give a directory (it is created if missing)", o.StateDir)
		}
	}
	if p.Redis {
		if o.Redis == "" {
			return profile{}, fmt.Errorf("profile %s keeps its keys in Redis: give its address with --redis, e.g. 127.0.0.1:6379", p.Name)
		}
		if err := checkLoopback(o.Redis); err != nil {
			return profile{}, fmt.Errorf("redis: %w", err)
		}
	}
	if o.Instance < 0 || o.Instance > maxInstance {
		return profile{}, fmt.Errorf("instance %d is out of range; want 0 to %d", o.Instance, maxInstance)
	}
	switch {
	case o.Keys == 0:
		o.Keys = DefaultKeys
	case o.Keys < 1 || o.Keys > 1<<20:
		return profile{}, fmt.Errorf("keys %d is out of range; want 1 to %d", o.Keys, 1<<20)
	}
	switch {
	case o.TTL == 0:
		o.TTL = DefaultTTL
	case o.TTL < 0 || o.TTL > 24*time.Hour:
		return profile{}, fmt.Errorf("ttl %v is out of range; want a duration from 1ns to 24h, e.g. 1s", o.TTL)
	}
	switch {
	case o.Window == 0:
		o.Window = DefaultWindow
	case o.Window < 0 || o.Window > maxWindow:
		return profile{}, fmt.Errorf("window %v is out of range; want a duration from 0 to %v, e.g. 50us", o.Window, maxWindow)
	}
	return p, nil
}

// checkLoopback accepts localhost and loopback IPs only.
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
	return fmt.Errorf("listen address %q is not loopback: the shop is a test target; use 127.0.0.1, [::1] or localhost", addr)
}
