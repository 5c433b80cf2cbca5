package shop

import (
	"crypto/sha256"
	"encoding/hex"
)

// derivedKeyGuard is the key derived from the operation and its inputs: a
// stable, deterministic id instead of the client's. It ignores the client's
// Idempotency-Key and keys on sha256(operation, customer, amount or plan),
// leaving out the memo. Retries de-duplicate, and a missing key is no
// problem, but two distinct intents with the same inputs (a customer who
// really does buy the same thing twice) are merged into one charge. The
// derived key is passed downstream as the Idempotency-Key. Used by the
// "payload-dedup" profile.
type derivedKeyGuard struct {
	inner guard
}

func (g derivedKeyGuard) begin(c call) (claim, *reply, error) {
	sum := sha256.Sum256([]byte(c.semantic))
	c.key = "pd_" + hex.EncodeToString(sum[:16])
	// The derived key is the whole payload as far as this guard knows.
	c.fingerprint = ""
	return g.inner.begin(c)
}
