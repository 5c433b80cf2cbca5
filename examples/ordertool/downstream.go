package ordertool

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// downstreamTimeout bounds one call to payments or email.
const downstreamTimeout = 10 * time.Second

// unavailableError is a downstream failure whose outcome is unknown or
// temporary: a 5xx (the call may have taken effect before it failed), a
// lost connection, a 409 or 429. Only a retry with the same key is safe.
type unavailableError struct{ msg string }

func (e *unavailableError) Error() string { return e.msg }

// declinedError is a definitive refusal (a 4xx): retrying cannot succeed.
type declinedError struct{ msg string }

func (e *declinedError) Error() string { return e.msg }

// asResponse maps a downstream error to the tool's reply.
func asResponse(err error) response {
	var d *declinedError
	if errors.As(err, &d) {
		return failure(ExitFailed, codeDeclined, "%v", err)
	}
	return failure(ExitTempFail, codeUnavailable, "%v: the outcome is unknown; retry with the same idempotency key", err)
}

// client makes the tool's one downstream request per run.
var client = &http.Client{Timeout: downstreamTimeout}

// post sends body as JSON to url, with key as the Idempotency-Key when not
// empty, and returns the status, the headers and the body of a 2xx reply.
func post(ctx context.Context, service, url string, body any, key string) (http.Header, []byte, error) {
	raw, err := json.Marshal(body)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: encode request: %v", service, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(raw))
	if err != nil {
		return nil, nil, &declinedError{fmt.Sprintf("%s: %v", service, err)}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, nil, &unavailableError{fmt.Sprintf("%s: %v", service, err)}
	}
	defer resp.Body.Close()
	rb, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, nil, &unavailableError{fmt.Sprintf("%s: read reply (HTTP %d): %v", service, resp.StatusCode, err)}
	}
	switch s := resp.StatusCode; {
	case s >= 200 && s < 300:
		return resp.Header, rb, nil
	case s >= 500, s == http.StatusConflict, s == http.StatusTooManyRequests:
		return nil, nil, &unavailableError{fmt.Sprintf("%s: HTTP %d: %s", service, s, snippet(rb))}
	default:
		return nil, nil, &declinedError{fmt.Sprintf("%s: refused (HTTP %d): %s", service, s, snippet(rb))}
	}
}

func snippet(raw []byte) string {
	s := strings.TrimSpace(string(raw))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	if s == "" {
		return "(empty body)"
	}
	return s
}

// charge makes one charge at the payments API (Stripe-like) and returns
// its id. memo goes into the description, where idemcheck's marker rides.
func charge(ctx context.Context, base string, customer string, amount int64, memo, key string) (string, error) {
	body := map[string]any{"amount": amount, "currency": "usd", "customer": customer, "description": memo}
	_, rb, err := post(ctx, "payments", strings.TrimRight(base, "/")+"/v1/charges", body, key)
	if err != nil {
		return "", err
	}
	var ch struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(rb, &ch) != nil || ch.ID == "" {
		return "", &unavailableError{"payments: a success without a charge id: " + snippet(rb)}
	}
	return ch.ID, nil
}

// sendMail sends one message through the email API (SendGrid-like: POST
// /v3/mail/send, 202 Accepted) and returns the message id it gave, or one
// of the tool's own.
func sendMail(ctx context.Context, base, to, subject, text, key string) (string, error) {
	body := map[string]any{
		"personalizations": []any{map[string]any{"to": []any{map[string]string{"email": to}}}},
		"from":             map[string]string{"email": "shop@example.test"},
		"subject":          subject,
		"content":          []any{map[string]string{"type": "text/plain", "value": text}},
	}
	h, _, err := post(ctx, "email", strings.TrimRight(base, "/")+"/v3/mail/send", body, key)
	if err != nil {
		return "", err
	}
	if id := h.Get("X-Message-Id"); id != "" {
		return id, nil
	}
	return newID("msg_"), nil
}

// newID returns prefix and 12 random hex digits.
func newID(prefix string) string {
	b := make([]byte, 6)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return prefix + hex.EncodeToString(b)
}
