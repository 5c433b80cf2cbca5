package shop

import "fmt"

// keyColumn is how many characters the key-column-500 profile's key
// column holds.
const keyColumn = 64

// keyColumnGuard is the correct guard whose key column holds 64
// characters, behind no check of the key's length: a longer key fails
// the insert, and the database's error reaches the client as a 500
// instead of a 400 that says what a key must be. Used by the
// "key-column-500" profile.
type keyColumnGuard struct{ inner guard }

func (g keyColumnGuard) begin(c call) (claim, *reply, error) {
	if len(c.key) > keyColumn {
		return nil, nil, fmt.Errorf("insert idempotency key: value too long for type character varying(%d)", keyColumn)
	}
	return g.inner.begin(c)
}
