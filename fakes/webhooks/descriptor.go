package webhooks

import (
	"github.com/idemcheck/idemcheck/config/schema"
	"github.com/idemcheck/idemcheck/fakes"
)

// Descriptor describes the webhook sink to the configuration file and to
// `idemcheck fakes`.
var Descriptor = fakes.Descriptor{
	Name:    fakeName,
	Summary: "a webhook sink, recording every delivery POSTed under /hooks/…",
	Endpoints: []fakes.Endpoint{{
		Placeholder: "url", Field: "listen", Flag: "webhooks", What: "the webhook sink", Env: "WEBHOOKS_URL",
		Serves: "POST /hooks/…", Value: fakes.URL,
	}},
	New: func() fakes.Settings { return &Settings{} },
}

// Settings are the webhook sink's section of the configuration file.
type Settings struct {
	// HonourKeys says whether the sink de-duplicates deliveries that carry
	// the same key in KeyHeader, as a careful receiver does. Default true;
	// false records every delivery.
	HonourKeys *bool `yaml:"honour_keys,omitempty"`
	// KeyHeader is the header a delivery's idempotency key is read from.
	// Default DefaultKeyHeader.
	KeyHeader string `yaml:"key_header,omitempty"`
	// Listen fixes the sink's address, a loopback host:port; empty means
	// a free port (see the payments fake's listen).
	Listen string `yaml:"listen,omitempty"`
}

// Rules implements schema.Ruler.
func (Settings) Rules(r *schema.Rules) {
	r.Field("key_header").Pattern("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$", schema.Sprintf("invalid header name %q"))
}

// Addresses implements fakes.Settings.
func (s *Settings) Addresses() []*string { return []*string{&s.Listen} }

// Defaults implements fakes.Settings.
func (s *Settings) Defaults() {
	if s.HonourKeys == nil {
		honour := true
		s.HonourKeys = &honour
	}
	if s.KeyHeader == "" {
		s.KeyHeader = DefaultKeyHeader
	}
}

// Starter implements fakes.Settings.
func (s *Settings) Starter(control string) fakes.Starter {
	return Starter(Options{Addr: s.Listen, IgnoreIdempotencyKeys: !fakes.Honour(s.HonourKeys), KeyHeader: s.KeyHeader, ControlAddr: control})
}
