package email_test

import (
	"io"
	"net"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/fakes/email"
)

// FuzzSMTPSession: whatever a client says to the SMTP fake, it answers or
// hangs up without a panic, and still takes the next good message.
func FuzzSMTPSession(f *testing.F) {
	f.Add([]byte("EHLO x\r\nMAIL FROM:<a@x>\r\nRCPT TO:<b@x>\r\nDATA\r\nSubject: s\r\n\r\nhi\r\n.\r\nQUIT\r\n"))
	f.Add([]byte("HELO\r\nDATA\r\n..\r\n.\r\nRSET\r\nNOOP\r\nVRFY x\r\n"))
	f.Add([]byte("MAIL FROM:<\x00>\r\nRCPT TO:<>\r\nDATA\r\n" + string(make([]byte, 300)) + "\r\n.\r\n"))
	f.Add([]byte("EHLO x\r\nSTARTTLS\r\nAUTH PLAIN AGFAYg==\r\n"))
	srv, err := email.New(email.Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = srv.Close() })
	f.Fuzz(func(t *testing.T, raw []byte) {
		conn, err := net.Dial("tcp", srv.SMTPAddr())
		if err != nil {
			t.Fatal(err)
		}
		_ = conn.SetDeadline(time.Now().Add(2 * time.Second))
		_, _ = conn.Write(raw)
		_ = conn.(*net.TCPConn).CloseWrite()
		_, _ = io.Copy(io.Discard, io.LimitReader(conn, 1<<20))
		conn.Close()
		if err := sendMail(srv.SMTPAddr(), mail("after fuzz", "still here")); err != nil {
			t.Fatalf("after %q the SMTP fake no longer takes a good message: %v", raw, err)
		}
	})
}
