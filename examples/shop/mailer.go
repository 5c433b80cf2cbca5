package shop

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// shopSender is the From address of the shop's emails.
const shopSender = "orders@shop.example"

// email is one message the shop sends.
type email struct {
	to, subject, text string
}

// confirmation is an order's confirmation email. It depends only on what
// the key's request asked and on the charge (the same charge id when
// payments replays it), never on the order id, which a re-execution after
// a crash renews: so a retry sends the very same email under the same key,
// and the email fake replays it instead of refusing another body.
func confirmation(in intent, chargeID string) email {
	return email{
		to:      in.customer + "@customers.shop.example",
		subject: "Your order is confirmed",
		text:    fmt.Sprintf("We charged %d %s (charge %s). %s", in.amount, currency, chargeID, in.memo),
	}
}

// mailer sends emails through the email fake's SendGrid-like HTTP API.
type mailer struct {
	base string
	http *http.Client
}

func newMailer(base string) *mailer {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	return &mailer{base: strings.TrimRight(base, "/"), http: &http.Client{Timeout: downstreamTimeout, Transport: tr}}
}

func (m *mailer) close() { m.http.CloseIdleConnections() }

// send posts one message; key, when not empty, goes as the
// Idempotency-Key. Any failure is an error: the shop answers 502, keeps
// nothing, and the client's retry (same key) sends the email again.
func (m *mailer) send(ctx context.Context, e email, key string) error {
	body, _ := json.Marshal(map[string]any{
		"personalizations": []any{map[string]any{"to": []any{map[string]string{"email": e.to}}}},
		"from":             map[string]string{"email": shopSender},
		"subject":          e.subject,
		"content":          []any{map[string]string{"type": "text/plain", "value": e.text}},
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, m.base+"/v3/mail/send", bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("email: %v", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := m.http.Do(req)
	if err != nil {
		return fmt.Errorf("email: %v", err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("email: HTTP %d: %s", resp.StatusCode, errorMessage(raw))
	}
	return nil
}
