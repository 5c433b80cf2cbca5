package http

import (
	"fmt"
	nethttp "net/http"
)

// Caller is the credentials of one caller of the target: headers (an
// Authorization, an API key, an account id) set on every request it sends,
// over the operation's own. With two callers, key.scope sends the same key
// from both and expects two requests, never one caller's stored reply
// given to the other.
type Caller struct {
	Headers map[string]string
}

// setCaller sets caller n's headers on req; no callers configured means
// nothing to set.
func (t *Target) setCaller(req *nethttp.Request, n int) error {
	if len(t.cfg.Callers) == 0 {
		if n != 0 {
			return fmt.Errorf("caller %d: the target has no callers configured", n+1)
		}
		return nil
	}
	if n < 0 || n >= len(t.cfg.Callers) {
		return fmt.Errorf("caller %d: the target has %d callers configured", n+1, len(t.cfg.Callers))
	}
	for k, v := range t.cfg.Callers[n].Headers {
		req.Header.Set(k, v)
	}
	return nil
}
