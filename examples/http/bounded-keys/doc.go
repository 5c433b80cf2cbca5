// Command bounded-keys runs the reference shop with the "bounded-keys" idempotency profile:
// a key store that keeps only the last --keys keys (64 by default, or
// $SHOP_KEYS), least recently used out; see package
// github.com/idemcheck/idemcheck/examples/shop for what it is built to show.
//
// Usage:
//
//	bounded-keys --payments http://127.0.0.1:4242 [--keys 64] [--listen 127.0.0.1:0] [--state DIR] [--email URL]
package main
