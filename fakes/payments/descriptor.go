package payments

import "github.com/idemcheck/idemcheck/fakes"

// Descriptor describes the payments fake to the configuration file and
// to `idemcheck fakes`.
var Descriptor = fakes.Descriptor{
	Name:    fakeName,
	Summary: "a Stripe-like payments API",
	Endpoints: []fakes.Endpoint{{
		Placeholder: "url", Field: "listen", Flag: "payments", What: "the payments fake", Env: "PAYMENTS_URL",
		Serves: "POST /v1/charges, GET /v1/charges", Value: fakes.URL,
	}},
	New: func() fakes.Settings { return &Settings{} },
}

// Settings are the payments fake's section of the configuration file.
type Settings struct {
	// HonourKeys says whether the fake de-duplicates requests that carry
	// the same Idempotency-Key, as the real service does. Default true;
	// false models a downstream that does not, to see whether the target
	// copes.
	HonourKeys *bool `yaml:"honour_keys,omitempty"`
	// Listen fixes the fake's address, a loopback host:port such as
	// "127.0.0.1:4242", so that a service started by hand can be pointed
	// at it; empty means a free port, different every run. A fixed
	// address already taken stops the run before it starts (exit 2), and
	// the targets of a file with fixed addresses are tested one at a time.
	Listen string `yaml:"listen,omitempty"`
}

// Addresses implements fakes.Settings.
func (s *Settings) Addresses() []*string { return []*string{&s.Listen} }

// Defaults implements fakes.Settings.
func (s *Settings) Defaults() {
	if s.HonourKeys == nil {
		honour := true
		s.HonourKeys = &honour
	}
}

// Starter implements fakes.Settings.
func (s *Settings) Starter(control string) fakes.Starter {
	return Starter(Options{Addr: s.Listen, IgnoreIdempotencyKeys: !fakes.Honour(s.HonourKeys), ControlAddr: control})
}
