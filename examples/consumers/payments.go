package consumers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// downstreamTimeout bounds one charge.
const downstreamTimeout = 30 * time.Second

// payments charges on the payments service (in tests, the fake).
type payments struct {
	base string
	http *http.Client
	// delay is waited before each charge (Options.ChargeDelay).
	delay time.Duration
}

func newPayments(base string) *payments {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	return &payments{base: strings.TrimRight(base, "/"), http: &http.Client{Timeout: downstreamTimeout, Transport: tr}}
}

func (p *payments) close() { p.http.CloseIdleConnections() }

// charge makes c; key, when not empty, goes downstream as the
// Idempotency-Key. Any error means the charge failed or its outcome is
// unknown.
func (p *payments) charge(ctx context.Context, c charge, key string) (string, error) {
	if p.delay > 0 {
		t := time.NewTimer(p.delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return "", fmt.Errorf("payments: %v", ctx.Err())
		case <-t.C:
		}
	}
	body, _ := json.Marshal(c)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.base+"/v1/charges", bytes.NewReader(body))
	if err != nil {
		return "", fmt.Errorf("payments: %v", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := p.http.Do(req)
	if err != nil {
		return "", fmt.Errorf("payments: %v", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", fmt.Errorf("payments: read reply (HTTP %d): %v", resp.StatusCode, err)
	}
	if resp.StatusCode/100 != 2 {
		return "", fmt.Errorf("payments: HTTP %d: %s", resp.StatusCode, bytes.TrimSpace(raw))
	}
	var ch struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(raw, &ch) != nil || ch.ID == "" {
		return "", fmt.Errorf("payments: HTTP %d without a charge id", resp.StatusCode)
	}
	return ch.ID, nil
}
