package email

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/fakes/internal/httpfake"
)

// DefaultAddr is the HTTP API's listen address when Options.Addr is empty,
// and the SMTP server's when Options.SMTPAddr is.
const DefaultAddr = "127.0.0.1:0"

// MaxMessageBytes bounds a message over SMTP and a send request over HTTP.
const MaxMessageBytes = 1 << 20

// fakeName is the name of this fake in configuration and in the ledger.
const fakeName = "email"

// Options configures a Server. The zero value is ready to use.
type Options struct {
	// Addr is the HTTP API's listen address; it must be loopback. Empty
	// means DefaultAddr.
	Addr string
	// SMTPAddr is the SMTP server's listen address; it must be loopback.
	// Empty means DefaultAddr.
	SMTPAddr string
	// Ledger is where messages are recorded. Nil means a new, private
	// ledger; pass one to share it between several fakes.
	Ledger *fakes.Ledger
	// IgnoreIdempotencyKeys makes the HTTP API ignore Idempotency-Key, so
	// that every send is a new message: a provider without idempotency.
	// (SMTP never de-duplicates.)
	IgnoreIdempotencyKeys bool
	// ControlAddr, when set, serves the control API (the ledger, the fault
	// rules: see the package documentation) on a loopback listener of its
	// own; empty serves none. Neither door serves it, so that a target
	// cannot disarm the faults armed for it.
	ControlAddr string
}

// TB is the part of *testing.T and *testing.B that Start uses.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
	Cleanup(func())
}

// Message is one email the fake accepted, by either door.
type Message struct {
	// ID is "msg_" and a six-digit sequence number, per server.
	ID string `json:"id"`
	// Via is "smtp" or "http".
	Via string `json:"via"`
	// From is the sender: MAIL FROM over SMTP, from.email over HTTP.
	From string `json:"from"`
	// To are the recipients: RCPT TO over SMTP, every to.email over HTTP.
	To      []string `json:"to"`
	Subject string   `json:"subject"`
	// Text is the message body over SMTP (undecoded), the content values
	// joined by blank lines over HTTP.
	Text string `json:"text"`
	// MessageID is the Message-ID header (SMTP only), without <>.
	MessageID string `json:"message_id,omitempty"`
	// Key is the idempotency key the sender gave, if any (see the package
	// documentation for SMTP).
	Key string `json:"key,omitempty"`
	// Markers are the intent markers found in the message.
	Markers []string `json:"markers,omitempty"`
	// Raw is the message as received: the DATA over SMTP, the JSON body
	// over HTTP.
	Raw      string    `json:"raw"`
	Received time.Time `json:"received"`
}

func (m Message) clone() Message {
	m.To = slices.Clone(m.To)
	m.Markers = slices.Clone(m.Markers)
	return m
}

// Server is the email fake: an SMTP server and an HTTP send API sharing one
// ledger. Its methods are safe for concurrent use.
type Server struct {
	ignoreKeys bool
	ledger     *fakes.Ledger
	// rules holds the standard actions and DATA rejections, shared by both
	// doors; mailRules and rcptRules hold the SMTP MAIL and RCPT
	// rejections.
	rules, mailRules, rcptRules fakes.Rules
	keys                        httpfake.Keys

	http    *httpfake.Server
	smtp    *smtpServer
	control *httpfake.Server // nil without Options.ControlAddr

	mu       sync.Mutex
	messages []Message
	lastID   int

	closeOnce sync.Once
	closeErr  error
}

var (
	_ fakes.Fake        = (*Server)(nil)
	_ fakes.FireCounter = (*Server)(nil)
)

// New starts the fake as opts says: both servers listen at once and serve
// until Close.
func New(opts Options) (*Server, error) {
	addr, smtpAddr := opts.Addr, opts.SMTPAddr
	if addr == "" {
		addr = DefaultAddr
	}
	if smtpAddr == "" {
		smtpAddr = DefaultAddr
	}
	// Both addresses are checked before anything listens.
	if err := httpfake.CheckLoopback(fakeName, addr); err != nil {
		return nil, err
	}
	if err := httpfake.CheckLoopback(fakeName+" smtp", smtpAddr); err != nil {
		return nil, err
	}
	if opts.ControlAddr != "" {
		if err := httpfake.CheckLoopback(fakeName+" control", opts.ControlAddr); err != nil {
			return nil, err
		}
	}
	s := &Server{ignoreKeys: opts.IgnoreIdempotencyKeys, ledger: opts.Ledger}
	if s.ledger == nil {
		s.ledger = fakes.NewLedger()
	}
	ln, err := httpfake.Listen(fakeName, addr)
	if err != nil {
		return nil, err
	}
	// The handlers read s.http: set it before the first request can come.
	s.http = httpfake.NewServer(fakeName, ln, s.routes())
	s.http.Start()
	if s.smtp, err = startSMTP(s, smtpAddr); err != nil {
		_ = s.http.Close()
		return nil, err
	}
	if s.control, err = httpfake.ServeControl(fakeName, opts.ControlAddr, s.controlAPI()); err != nil {
		_ = s.http.Close()
		_ = s.smtp.close()
		return nil, err
	}
	return s, nil
}

// Start is New for tests: it fails tb if the fake cannot start and closes
// it when the test ends. It takes at most one Options.
func Start(tb TB, opts ...Options) *Server {
	tb.Helper()
	return httpfake.Start(tb, "email", New, opts)
}

// Name returns "email".
func (s *Server) Name() string { return fakeName }

// URL returns the HTTP API's base URL, e.g. http://127.0.0.1:41234.
func (s *Server) URL() string { return s.http.URL() }

// SMTPAddr returns the SMTP server's address, e.g. 127.0.0.1:41235.
func (s *Server) SMTPAddr() string { return s.smtp.addr }

// ControlURL returns the base URL of the control API, "" unless
// Options.ControlAddr was set.
func (s *Server) ControlURL() string { return httpfake.ControlURL(s.control) }

// Ledger returns the ledger messages are recorded in.
func (s *Server) Ledger() *fakes.Ledger { return s.ledger }

// Arm installs a downstream fault rule: a standard fakes action or a
// Reject. Rules are consulted in the order they were armed; each matching
// message consumes one use.
func (s *Server) Arm(r fakes.Rule) {
	if stage, _, ok := ParseReject(r.Action); ok {
		switch stage {
		case StageMail:
			s.mailRules.Arm(r)
			return
		case StageRcpt:
			s.rcptRules.Arm(r)
			return
		}
	}
	s.rules.Arm(r)
}

// Disarm removes every rule that has not fired yet.
func (s *Server) Disarm() {
	s.rules.Clear()
	s.mailRules.Clear()
	s.rcptRules.Clear()
}

// DisarmMarker removes the rules restricted to marker that have not fired
// yet.
func (s *Server) DisarmMarker(marker string) {
	s.rules.ClearMarker(marker)
	s.mailRules.ClearMarker(marker)
	s.rcptRules.ClearMarker(marker)
}

// Fired returns how many messages or commands the rules armed for marker
// have acted on, at either door (see fakes.FireCounter).
func (s *Server) Fired(marker string) int {
	return s.rules.Fired(marker) + s.mailRules.Fired(marker) + s.rcptRules.Fired(marker)
}

// Messages returns a copy of every message accepted, oldest first.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Message, len(s.messages))
	for i, m := range s.messages {
		out[i] = m.clone()
	}
	return out
}

// Close stops both servers: it ends injected delays and hangs, waits a few
// seconds for messages in flight, then cuts every connection. It is safe
// to call more than once; later calls return the first call's result.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		s.closeErr = errors.Join(s.http.Close(), s.smtp.close(), httpfake.CloseControl(s.control))
	})
	return s.closeErr
}

// record stores m with the next id and records it in the ledger, before
// any reply is written. It returns the stored message and the effect's
// sequence number in the ledger.
func (s *Server) record(m Message) (Message, int64) {
	s.mu.Lock()
	s.lastID++
	m.ID = fmt.Sprintf("msg_%06d", s.lastID)
	m.Received = time.Now()
	s.messages = append(s.messages, m.clone())
	s.mu.Unlock()
	// Not under s.mu: observers may block.
	detail := map[string]string{"via": m.Via, "from": m.From, "to": strings.Join(m.To, ","), "subject": m.Subject}
	if m.MessageID != "" {
		detail["message_id"] = m.MessageID
	}
	e := s.ledger.Record(fakes.Effect{Fake: fakeName, Kind: "message", ID: m.ID, Markers: m.Markers, Key: m.Key, Detail: detail})
	return m, e.Seq
}

// Starter returns a fakes.Starter that starts the fake with opts, writing
// into the ledger it is given (in place of opts.Ledger).
func Starter(opts Options) fakes.Starter {
	return func(_ context.Context, l *fakes.Ledger) (fakes.Fake, error) {
		o := opts
		o.Ledger = l
		return New(o)
	}
}
