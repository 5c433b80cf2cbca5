package payments

import (
	"fmt"
	"net/http"

	"github.com/idemcheck/idemcheck/fakes/internal/httpfake"
)

// claim claims key for a request with fingerprint fp. It returns true
// when the caller may go on; otherwise the reply to send: a 409 while the
// first request with the key is in flight, a 400 when the key was used with
// other parameters, the stored reply (marked as replayed) when it is done.
func (s *Server) claim(key, fp string) (httpfake.Reply, bool) {
	switch res, rp := s.keys.Claim(key, fp); res {
	case httpfake.Claimed:
		return httpfake.Reply{}, true
	case httpfake.InFlight:
		return (&apiError{
			Status:  http.StatusConflict,
			Type:    errIdempotency,
			Message: fmt.Sprintf("A request with idempotency key %s is still in flight; retry after it completes.", quoteShort(key)),
		}).reply(), false
	case httpfake.Mismatch:
		return (&apiError{
			Status:  http.StatusBadRequest,
			Type:    errIdempotency,
			Message: "Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than " + quoteShort(key) + " if you meant to execute a different request.",
		}).reply(), false
	default:
		return rp, false
	}
}
