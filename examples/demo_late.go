package examples

import (
	"fmt"
	"time"

	"github.com/idemcheck/idemcheck/harness"
)

// BoundedShopSpec is the harness spec of the bounded-keys shop keeping
// at most keys keys, started from exe and named bounded-keys-N.
func BoundedShopSpec(exe string, keys int) harness.Spec {
	return shopSpecNamed(exe, fmt.Sprintf("bounded-keys-%d", keys), "bounded-keys", false, "--keys", fmt.Sprint(keys))
}

// ExpiringShopSpec is the harness spec of the expiring-keys shop keeping
// a key for ttl, started from exe and named expiring-keys-TTL.
func ExpiringShopSpec(exe string, ttl time.Duration) harness.Spec {
	return shopSpecNamed(exe, "expiring-keys-"+ttl.String(), "expiring-keys", false, "--ttl", ttl.String())
}
