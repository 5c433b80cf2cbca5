package shop

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
)

// scopedKey is the key a request is stored under: the client's key within
// its caller's scope. Two callers (two Authorization headers) that happen
// to choose the same key make two requests, as a payments API scopes keys
// to the account. A request without Authorization has the one anonymous
// scope; a callerBlind profile keys by the client's key alone.
func (s *service) scopedKey(r *http.Request) string {
	k := requestKey(r)
	auth := r.Header.Get("Authorization")
	if k == "" || auth == "" || s.callerBlind {
		return k
	}
	h := sha256.Sum256([]byte(auth))
	return "c" + hex.EncodeToString(h[:6]) + "." + k
}
