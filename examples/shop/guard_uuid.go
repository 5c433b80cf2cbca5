package shop

import "regexp"

// uuidRE is what a UUID looks like: 8-4-4-4-12 hex digits.
var uuidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// uuidKeyGuard is the correct guard behind a validator that accepts only
// UUID-shaped keys (400 otherwise), as many services do. It has no flaw:
// it shows that a target with such a rule is tested once key_format says
// uuid, and told so when it does not. Used by the "uuid-keys" profile.
type uuidKeyGuard struct{ inner guard }

func (g uuidKeyGuard) begin(c call) (claim, *reply, error) {
	if c.key != "" && !uuidRE.MatchString(c.key) {
		return nil, nil, errKeyNotUUID
	}
	return g.inner.begin(c)
}
