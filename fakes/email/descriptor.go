package email

import "github.com/idemcheck/idemcheck/fakes"

// Descriptor describes the email fake to the configuration file and to
// `idemcheck fakes`: an HTTP send API ({{fakes.email.url}}) and an SMTP
// server ({{fakes.email.smtp}}, host:port).
var Descriptor = fakes.Descriptor{
	Name:    fakeName,
	Summary: "an email provider: a SendGrid-like HTTP send API and SMTP",
	Endpoints: []fakes.Endpoint{{
		Placeholder: "url", Field: "listen", Flag: "email", What: "the email fake's HTTP API", Env: "EMAIL_URL",
		Serves: "POST /v3/mail/send, GET /v3/messages", Value: fakes.URL,
	}, {
		Placeholder: "smtp", Field: "smtp", Flag: "smtp", What: "the email fake's SMTP server", Env: "SMTP_ADDR",
		Serves: "SMTP", Value: func(f fakes.Fake) string { return f.(*Server).SMTPAddr() },
	}},
	New: func() fakes.Settings { return &Settings{} },
}

// Settings are the email fake's section of the configuration file.
type Settings struct {
	// HonourKeys says whether the HTTP send API de-duplicates sends that
	// carry the same Idempotency-Key. Default true.
	HonourKeys *bool `yaml:"honour_keys,omitempty"`
	// Listen fixes the HTTP send API's address, a loopback host:port;
	// empty means a free port (see the payments fake's listen).
	Listen string `yaml:"listen,omitempty"`
	// SMTP fixes the SMTP server's address, a loopback host:port; empty
	// means a free port.
	SMTP string `yaml:"smtp,omitempty"`
}

// Addresses implements fakes.Settings.
func (s *Settings) Addresses() []*string { return []*string{&s.Listen, &s.SMTP} }

// Defaults implements fakes.Settings.
func (s *Settings) Defaults() {
	if s.HonourKeys == nil {
		honour := true
		s.HonourKeys = &honour
	}
}

// Starter implements fakes.Settings.
func (s *Settings) Starter(control string) fakes.Starter {
	return Starter(Options{Addr: s.Listen, SMTPAddr: s.SMTP, IgnoreIdempotencyKeys: !fakes.Honour(s.HonourKeys), ControlAddr: control})
}
