package email_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/smtp"
	"net/textproto"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/idemcheck/idemcheck/fakes"
)

// waitLimit bounds every wait in these tests: a deadline for a deadlock,
// not a timing assertion.
const waitLimit = 10 * time.Second

// Markers in the format fakes.NewMarker makes.
const (
	markerA = "idem-00000000000000aa"
	markerB = "idem-00000000000000bb"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// mail builds an RFC 5322 message; extra are header lines.
func mail(subject, body string, extra ...string) []byte {
	var b strings.Builder
	b.WriteString("From: shop@example.com\r\nTo: cus_1@example.com\r\n")
	fmt.Fprintf(&b, "Subject: %s\r\n", subject)
	for _, h := range extra {
		b.WriteString(h + "\r\n")
	}
	b.WriteString("\r\n" + body + "\r\n")
	return []byte(b.String())
}

// sendMail sends msg with net/smtp, as most Go senders do.
func sendMail(addr string, msg []byte) error {
	return smtp.SendMail(addr, nil, "shop@example.com", []string{"cus_1@example.com"}, msg)
}

// smtpCode returns the SMTP reply code of err, 0 when err is not an SMTP
// reply (a dropped connection).
func smtpCode(err error) int {
	var te *textproto.Error
	if err != nil && asTextproto(err, &te) {
		return te.Code
	}
	return 0
}

func asTextproto(err error, te **textproto.Error) bool {
	x, ok := err.(*textproto.Error)
	if ok {
		*te = x
	}
	return ok
}

// result is what an HTTP client saw.
type result struct {
	status int
	header http.Header
	body   string
	err    error
}

func newClient(t testing.TB) *http.Client {
	tr := &http.Transport{DisableKeepAlives: true}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: waitLimit}
}

func do(ctx context.Context, c *http.Client, method, u, body string, hdr ...string) result {
	req, err := http.NewRequestWithContext(ctx, method, u, strings.NewReader(body))
	if err != nil {
		return result{err: err}
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := c.Do(req)
	if err != nil {
		return result{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return result{status: resp.StatusCode, header: resp.Header, body: string(b), err: err}
}

// sendBody is a valid send request carrying text.
func sendBody(to, text string) string {
	return fmt.Sprintf(`{"personalizations":[{"to":[{"email":%q}]}],"from":{"email":"shop@example.com"},"subject":"Your order","content":[{"type":"text/plain","value":%q}]}`, to, text)
}

// recv waits for a value from ch, failing the test after waitLimit.
func recv[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(waitLimit):
		t.Fatalf("timed out after %s waiting for %s", waitLimit, what)
		var zero T
		return zero
	}
}

// holdFirstEffect blocks the first effect recorded in l inside its
// observer (after the message is stored, before the reply) until release.
func holdFirstEffect(t testing.TB, l *fakes.Ledger) (entered <-chan struct{}, release func()) {
	in := make(chan struct{})
	released := make(chan struct{})
	var first, rel sync.Once
	release = func() { rel.Do(func() { close(released) }) }
	cancel := l.Observe(func(fakes.Effect) {
		isFirst := false
		first.Do(func() { isFirst = true; close(in) })
		if isFirst {
			<-released
		}
	})
	t.Cleanup(func() { release(); cancel() })
	return in, release
}
