package shop

import (
	"context"
	"sync"
)

// cardVerifier is the "read-side-effect" profile's flaw: the first time a
// read sees a customer it "verifies their card" with a small real charge.
// GET /orders is documented as safe, yet it causes a side effect. The
// description carries the read's trace parameter, so the harness can
// attribute the charge to the read that caused it.
type cardVerifier struct {
	pay  *paymentsClient
	mu   sync.Mutex
	seen map[string]bool
}

func newCardVerifier(pay *paymentsClient) *cardVerifier {
	return &cardVerifier{pay: pay, seen: make(map[string]bool)}
}

// onRead charges customer once per process; a failed charge is forgotten
// so that the next read tries again.
func (v *cardVerifier) onRead(ctx context.Context, customer, trace string) error {
	if customer == "" {
		return nil
	}
	v.mu.Lock()
	if v.seen[customer] {
		v.mu.Unlock()
		return nil
	}
	v.seen[customer] = true
	v.mu.Unlock()
	// A GET carries no idempotency key to pass on.
	_, err := v.pay.charge(ctx, chargeRequest{
		Amount:      verifyAmount,
		Currency:    currency,
		Customer:    customer,
		Description: "verification " + trace,
	}, "")
	if err != nil {
		v.mu.Lock()
		delete(v.seen, customer)
		v.mu.Unlock()
	}
	return err
}
