package shop

import "context"

// keylessRetry is the "no-propagation" profile's flaw, a downstream retry
// that drops the key: the shop passes the client's key to payments, but when
// payments answers 5xx it retries the charge once by itself, and the retry
// goes out without the Idempotency-Key (the retry helper builds a fresh
// request and forgets the header). A 5xx is ambiguous: payments may have
// charged before failing (the fake's downstream-fail-after does exactly
// that). Then the keyless retry is a second charge, inside one client
// request, that no key store in the shop can see.
type keylessRetry struct {
	pay *paymentsClient
}

func (r keylessRetry) charge(ctx context.Context, c chargeRequest, key string) (charged, error) {
	ch, err := r.pay.charge(ctx, c, key)
	if !isUnavailable(err) {
		return ch, err
	}
	return r.pay.charge(ctx, c, "") // the flaw: no key on the retry
}
