package shop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// currency is the only one the shop sells in.
const currency = "usd"

// downstreamTimeout bounds one call to payments.
const downstreamTimeout = 10 * time.Second

// chargeRequest is the body of POST /v1/charges.
type chargeRequest struct {
	Amount      int64  `json:"amount"`
	Currency    string `json:"currency"`
	Customer    string `json:"customer"`
	Description string `json:"description"`
}

// declinedError is a definitive refusal by payments (a 4xx other than 409
// and 429): retrying the same charge cannot succeed, so the shop answers
// 402 and remembers that answer like any other.
type declinedError struct {
	status int
	msg    string
}

func (e *declinedError) Error() string {
	return fmt.Sprintf("payments: charge refused (HTTP %d): %s", e.status, e.msg)
}

// unavailableError is a 5xx from payments: the charge may or may not have
// happened (the fake's downstream-fail-after records it, then answers 503),
// so only a retry with the same Idempotency-Key is safe.
type unavailableError struct {
	status int
	msg    string
}

func (e *unavailableError) Error() string {
	return fmt.Sprintf("payments: HTTP %d: %s", e.status, e.msg)
}

// charged is what payments said about a charge.
type charged struct {
	// id is the charge id.
	id string
	// replayed is true when payments answered Idempotent-Replayed: true:
	// the charge was made earlier with the same key (by a request whose
	// reply was lost, or by an earlier incarnation of this process), and
	// this reply is its stored result. The shop answers as for a first
	// charge: the caller never saw a success for it.
	replayed bool
}

// A charger makes the downstream charge of one executed call. The
// paymentsClient is the faithful one; a profile may wrap it with a flaw
// (see charger_retry.go).
type charger interface {
	// charge creates one charge; key, when not empty, goes downstream as
	// the Idempotency-Key.
	charge(ctx context.Context, c chargeRequest, key string) (charged, error)
}

// paymentsClient calls the payments service (in tests, the payments fake).
type paymentsClient struct {
	base string
	http *http.Client
}

func newPaymentsClient(base string) *paymentsClient {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	return &paymentsClient{
		base: strings.TrimRight(base, "/"),
		http: &http.Client{Timeout: downstreamTimeout, Transport: tr},
	}
}

// close drops idle connections so that nothing outlives Serve.
func (p *paymentsClient) close() { p.http.CloseIdleConnections() }

// charge creates one charge. key, when not empty, is sent as the
// Idempotency-Key so that payments can de-duplicate a retry of a charge
// whose reply was lost (or whose caller crashed). Any error but
// *declinedError means the outcome is unknown or failed retryably: the
// caller answers 502; a 5xx is an *unavailableError.
func (p *paymentsClient) charge(ctx context.Context, c chargeRequest, key string) (charged, error) {
	body, err := json.Marshal(c)
	if err != nil {
		return charged{}, fmt.Errorf("payments: encode charge: %v", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.base+"/v1/charges", bytes.NewReader(body))
	if err != nil {
		return charged{}, fmt.Errorf("payments: %v", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := p.http.Do(req)
	if err != nil {
		return charged{}, fmt.Errorf("payments: %v", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return charged{}, fmt.Errorf("payments: read reply (HTTP %d): %v", resp.StatusCode, err)
	}
	switch s := resp.StatusCode; {
	case s >= 200 && s < 300:
		var ch struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(raw, &ch); err != nil || ch.ID == "" {
			return charged{}, fmt.Errorf("payments: HTTP %d without a charge id: %s", s, snippet(raw))
		}
		return charged{id: ch.ID, replayed: resp.Header.Get(headerReplayed) == "true"}, nil
	case s >= 500:
		return charged{}, &unavailableError{status: s, msg: errorMessage(raw)}
	case s >= 400 && s != http.StatusConflict && s != http.StatusTooManyRequests:
		return charged{}, &declinedError{status: s, msg: errorMessage(raw)}
	default:
		// 409 (the key is in flight at payments, e.g. the charge of a
		// crashed incarnation is still finishing), 429, or an unexpected
		// status: a retry may succeed.
		return charged{}, fmt.Errorf("payments: HTTP %d: %s", s, errorMessage(raw))
	}
}

// errorMessage pulls the message out of a Stripe-like or a flat error body.
func errorMessage(raw []byte) string {
	var nested struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(raw, &nested) == nil && nested.Error.Message != "" {
		return nested.Error.Message
	}
	var flat struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(raw, &flat) == nil && flat.Error != "" {
		return flat.Error
	}
	return snippet(raw)
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

// isDeclined reports whether err is a definitive refusal by payments.
func isDeclined(err error) bool {
	var d *declinedError
	return errors.As(err, &d)
}

// isUnavailable reports whether err is a 5xx from payments.
func isUnavailable(err error) bool {
	var u *unavailableError
	return errors.As(err, &u)
}
