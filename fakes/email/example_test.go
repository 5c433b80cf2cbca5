package email_test

import (
	"fmt"
	"net/http"
	"net/smtp"
	"strings"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/fakes/email"
)

// A target sends its email over SMTP, as it would to a real relay; the
// ledger attributes the message to the marker in its body.
func Example() {
	srv, err := email.New(email.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()

	msg := "Subject: Order confirmed\r\n\r\nThanks for order 7 (idem-00000000000000aa)\r\n"
	if err := smtp.SendMail(srv.SMTPAddr(), nil, "shop@example.com", []string{"ann@example.com"}, []byte(msg)); err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range srv.Ledger().ByMarker("idem-00000000000000aa") {
		fmt.Println(e.Seq, e.Fake, e.Kind, e.ID, e.Detail["to"], e.Detail["subject"])
	}
	// Output:
	// 1 email message msg_000001 ann@example.com Order confirmed
}

// The dropped 250: the fake stores the message, then drops the connection
// before answering. A sender that retries sends it twice.
func ExampleServer_Arm() {
	srv, err := email.New(email.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	srv.Arm(fakes.Rule{Marker: "idem-00000000000000aa", Action: fakes.ResetAfter})

	msg := []byte("Subject: Welcome\r\n\r\nidem-00000000000000aa\r\n")
	for try := 1; try <= 2; try++ {
		err := smtp.SendMail(srv.SMTPAddr(), nil, "app@example.com", []string{"ann@example.com"}, msg)
		fmt.Println("try", try, "failed:", err != nil)
		if err == nil {
			break
		}
	}
	fmt.Println("messages:", len(srv.Messages()))
	// Output:
	// try 1 failed: true
	// try 2 failed: false
	// messages: 2
}

// The HTTP API de-duplicates by Idempotency-Key, as SendGrid-like
// providers that support keys do.
func Example_http() {
	srv, err := email.New(email.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()

	body := `{"personalizations":[{"to":[{"email":"ann@example.com"}]}],"from":{"email":"shop@example.com"},` +
		`"subject":"Order confirmed","content":[{"type":"text/plain","value":"order 7"}]}`
	for range 2 {
		req, _ := http.NewRequest(http.MethodPost, srv.URL()+"/v3/mail/send", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", "order-7-confirmation")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			fmt.Println(err)
			return
		}
		resp.Body.Close()
		fmt.Println(resp.StatusCode, resp.Header.Get("X-Message-Id"), "replayed:", resp.Header.Get("Idempotent-Replayed") == "true")
	}
	fmt.Println("messages:", len(srv.Messages()))
	// Output:
	// 202 msg_000001 replayed: false
	// 202 msg_000001 replayed: true
	// messages: 1
}
