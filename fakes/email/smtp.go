package email

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"mime"
	"net"
	"net/mail"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/fakes/internal/httpfake"
)

// smtpServer is the SMTP door: go-smtp's server on a listener that keeps
// track of its connections, so that Close can wait for messages in flight
// and then cut every connection (go-smtp's Shutdown waits for clients to
// hang up, its Close does not wait at all).
type smtpServer struct {
	fake *Server
	srv  *smtp.Server
	ln   *trackingListener
	addr string

	closing   chan struct{}
	serveDone chan struct{}
	serveErr  error

	mu       sync.Mutex
	closed   bool
	inflight sync.WaitGroup // DATA handlers running
}

func startSMTP(fake *Server, addr string) (*smtpServer, error) {
	raw, err := httpfake.Listen(fakeName+" smtp", addr)
	if err != nil {
		return nil, err
	}
	s := &smtpServer{
		fake:      fake,
		ln:        &trackingListener{Listener: raw, conns: map[*trackedConn]struct{}{}},
		addr:      raw.Addr().String(),
		closing:   make(chan struct{}),
		serveDone: make(chan struct{}),
	}
	s.srv = smtp.NewServer(smtp.BackendFunc(s.newSession))
	s.srv.Addr = s.addr
	s.srv.Domain = "localhost"
	s.srv.AllowInsecureAuth = true // loopback only; PLAIN is offered without TLS
	s.srv.MaxMessageBytes = MaxMessageBytes
	s.srv.MaxRecipients = 100
	s.srv.ReadTimeout = time.Minute
	s.srv.WriteTimeout = 10 * time.Second
	s.srv.ErrorLog = log.New(io.Discard, "", 0)
	go func() {
		defer close(s.serveDone)
		s.serveErr = s.srv.Serve(s.ln)
	}()
	return s, nil
}

// beginData registers a DATA handler; false once the server is closing.
func (s *smtpServer) beginData() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.inflight.Add(1)
	return true
}

func (s *smtpServer) close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	close(s.closing)

	ctx, cancel := context.WithTimeout(context.Background(), httpfake.CloseTimeout)
	defer cancel()
	shut := make(chan error, 1)
	// Shutdown closes the listener, then waits for every connection
	// handler to return.
	go func() { shut <- s.srv.Shutdown(ctx) }()

	var err error
	drained := make(chan struct{})
	go func() { s.inflight.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-ctx.Done():
		err = fmt.Errorf("email: SMTP messages to %s still in flight after %s (is a ledger observer blocked?)", s.addr, httpfake.CloseTimeout)
	}
	// Every session ends at its next read: a message just handled still
	// gets its reply, an idle session is told 421 and closed.
	s.ln.expire()
	var serr error
	select {
	case serr = <-shut:
	case <-time.After(time.Second):
		// A session that has not noticed the expiry (it was between two
		// reads when it came) is cut: Close ends every session.
		s.ln.closeAll()
		serr = <-shut
	}
	if serr != nil {
		s.ln.closeAll()
		if err == nil {
			err = fmt.Errorf("email: SMTP sessions on %s did not end: %w", s.addr, serr)
		}
	}
	<-drained
	// Serve may have registered its listener only after Shutdown looked
	// for it (a server closed right after it started): closing it here
	// ends Serve's Accept in every case.
	_ = s.ln.Close()
	<-s.serveDone
	if err == nil && s.serveErr != nil {
		err = fmt.Errorf("email: SMTP serve %s: %w", s.addr, s.serveErr)
	}
	return err
}

// wait blocks for d or until the server starts closing; it reports whether
// the full delay elapsed.
func (s *smtpServer) wait(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-s.closing:
		return false
	}
}

// hang holds until the client hangs up or the server closes, then drops
// the connection. Nobody else reads the connection during DATA, so a read
// here only returns when the client goes away.
func (s *smtpServer) hang(conn net.Conn) {
	_ = conn.SetReadDeadline(time.Time{})
	gone := make(chan struct{})
	go func() {
		var b [1]byte
		_, _ = conn.Read(b[:])
		close(gone)
	}()
	select {
	case <-gone:
	case <-s.closing:
	}
	dropConn(conn)
	<-gone
}

// session is one SMTP session: an envelope and the message that follows.
type session struct {
	s    *smtpServer
	conn *smtp.Conn
	from string
	to   []string
}

func (s *smtpServer) newSession(c *smtp.Conn) (smtp.Session, error) {
	return &session{s: s, conn: c}, nil
}

// AuthMechanisms implements smtp.AuthSession: PLAIN, any credentials.
func (se *session) AuthMechanisms() []string { return []string{sasl.Plain} }

// Auth implements smtp.AuthSession. Credentials are neither checked nor
// kept.
func (se *session) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(identity, username, password string) error { return nil }), nil
}

func (se *session) Reset() { se.from, se.to = "", nil }

func (se *session) Logout() error { return nil }

// envelope is the text the envelope rules match markers in.
func (se *session) envelope(extra string) []string {
	return fakes.FindMarkers([]byte(se.conn.Hostname() + "\n" + se.from + "\n" + strings.Join(se.to, "\n") + "\n" + extra))
}

func (se *session) Mail(from string, _ *smtp.MailOptions) error {
	se.from, se.to = from, nil
	return rejection(&se.s.fake.mailRules, se.envelope(""), "MAIL FROM")
}

func (se *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	if err := rejection(&se.s.fake.rcptRules, se.envelope(to), "RCPT TO "+to); err != nil {
		return err
	}
	se.to = append(se.to, to)
	return nil
}

// rejection consumes a Reject rule matching markers and returns its error.
func rejection(rules *fakes.Rules, markers []string, what string) error {
	rule, ok := rules.Take(markers)
	if !ok {
		return nil
	}
	if rule.OnMatch != nil {
		rule.OnMatch()
	}
	_, code, _ := ParseReject(rule.Action)
	return &smtp.SMTPError{Code: code, EnhancedCode: smtp.EnhancedCodeNotSet, Message: "injected: " + what + " rejected"}
}

var (
	errTryLater = &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "injected: service unavailable, try again later"}
	errClosing  = &smtp.SMTPError{Code: 421, EnhancedCode: smtp.EnhancedCode{4, 3, 2}, Message: "the fake is shutting down"}
	// errDropped is returned after the connection was dropped: nobody
	// reads it.
	errDropped = errors.New("connection dropped")
)

func (se *session) Data(r io.Reader) error {
	// A message in flight is one whose DATA has begun: Close waits for it.
	if !se.s.beginData() {
		return errClosing
	}
	defer se.s.inflight.Done()
	raw, err := io.ReadAll(r)
	if err != nil {
		return err // too large, or the client went away: go-smtp answers
	}
	msg := se.parse(raw)
	conn := se.conn.Conn()

	rule, faulty := se.s.fake.rules.Take(msg.Markers)
	if faulty && rule.OnMatch != nil {
		rule.OnMatch()
	}
	if faulty {
		switch rule.Action {
		case fakes.FailBefore:
			return errTryLater
		case fakes.Hang:
			se.s.hang(conn)
			return errDropped
		case fakes.Delay:
			if !se.s.wait(rule.Delay) {
				return errClosing
			}
		case fakes.AwaitCaller:
			// No caller to wait for over SMTP: it passes, at once.
			if rule.OnRelease != nil {
				rule.OnRelease()
			}
		}
		if stage, code, ok := ParseReject(rule.Action); ok && stage == StageData {
			return &smtp.SMTPError{Code: code, EnhancedCode: smtp.EnhancedCodeNotSet, Message: "injected: message rejected"}
		}
	}

	m, _ := se.s.fake.record(msg)

	if faulty {
		switch rule.Action {
		case fakes.FailAfter:
			return errTryLater
		case fakes.ResetAfter:
			// The message is stored; the 250 never leaves.
			dropConn(conn)
			return errDropped
		case fakes.HangAfter:
			se.s.hang(conn)
			return errDropped
		}
	}
	// go-smtp answers nil with "250 2.0.0 OK: queued"; say which message.
	return &smtp.SMTPError{Code: 250, EnhancedCode: smtp.EnhancedCode{2, 0, 0}, Message: "OK: queued as " + m.ID}
}

// parse reads what it can of the message; a message that does not parse is
// kept raw.
func (se *session) parse(raw []byte) Message {
	m := Message{
		Via: "smtp", From: se.from, To: append([]string(nil), se.to...), Raw: string(raw), Text: string(raw),
		Markers: fakes.FindMarkers([]byte(se.conn.Hostname() + "\n" + se.from + "\n" + strings.Join(se.to, "\n") + "\n" + string(raw))),
	}
	pm, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return m
	}
	dec := new(mime.WordDecoder)
	if m.Subject, err = dec.DecodeHeader(pm.Header.Get("Subject")); err != nil {
		m.Subject = pm.Header.Get("Subject")
	}
	m.MessageID = strings.Trim(strings.TrimSpace(pm.Header.Get("Message-Id")), "<>")
	for _, h := range []string{"X-Idempotency-Key", "Idempotency-Key"} {
		if k := strings.TrimSpace(pm.Header.Get(h)); k != "" {
			m.Key = k
			break
		}
	}
	if m.Key == "" {
		m.Key = m.MessageID
	}
	if body, err := io.ReadAll(pm.Body); err == nil {
		m.Text = string(body)
	}
	return m
}

// dropConn closes conn with a TCP reset where it can.
func dropConn(conn net.Conn) {
	if tc, ok := conn.(*trackedConn); ok {
		conn = tc.Conn
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}

// trackingListener remembers the connections it accepted until they
// close, so that Close can end every session.
type trackingListener struct {
	net.Listener
	expired   atomic.Bool
	closeOnce sync.Once
	closeErr  error
	mu        sync.Mutex
	conns     map[*trackedConn]struct{}
}

func (l *trackingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	tc := &trackedConn{Conn: c, l: l}
	l.mu.Lock()
	l.conns[tc] = struct{}{}
	l.mu.Unlock()
	if l.expired.Load() {
		_ = tc.SetReadDeadline(time.Time{}) // made past: the session ends at once
	}
	return tc, nil
}

// Close closes the listener once; later calls return the first result, so
// that go-smtp's Shutdown and the fake's own close do not race to an
// error.
func (l *trackingListener) Close() error {
	l.closeOnce.Do(func() { l.closeErr = l.Listener.Close() })
	return l.closeErr
}

func (l *trackingListener) all() []*trackedConn {
	l.mu.Lock()
	defer l.mu.Unlock()
	conns := make([]*trackedConn, 0, len(l.conns))
	for c := range l.conns {
		conns = append(conns, c)
	}
	return conns
}

// expire makes every read fail from now on, without cutting a reply that
// is being written.
func (l *trackingListener) expire() {
	l.expired.Store(true)
	for _, c := range l.all() {
		_ = c.SetReadDeadline(time.Time{})
	}
}

// closeAll closes every connection.
func (l *trackingListener) closeAll() {
	for _, c := range l.all() {
		_ = c.Close()
	}
}

type trackedConn struct {
	net.Conn
	l    *trackingListener
	once sync.Once
}

// expiredAt is a read deadline in the past.
var expiredAt = time.Unix(1, 0)

// SetReadDeadline is the connection's, except that once the listener has
// expired every deadline is in the past: go-smtp sets a fresh one before
// each command, which would keep an idle session open.
func (c *trackedConn) SetReadDeadline(t time.Time) error {
	if c.l.expired.Load() {
		t = expiredAt
	}
	return c.Conn.SetReadDeadline(t)
}

func (c *trackedConn) Close() error {
	c.once.Do(func() {
		c.l.mu.Lock()
		delete(c.l.conns, c)
		c.l.mu.Unlock()
	})
	return c.Conn.Close()
}
