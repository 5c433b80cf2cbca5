// Package redispay is a reference payments service that keeps its
// payments and its idempotency keys in its own Redis, reached at the URL
// in $REDIS_URL (or --redis): the Redis counterpart of examples/pgpay.
// idemcheck declares the Redis as a dependency, puts its proxy in front
// of it and hands the service the proxy's URL ({{deps.cache.url}}). Each
// payment is an entry of the stream "payments" that carries the request's
// note, so the proxy tells which intent a write belongs to by the marker
// in it, and an observer counts the entries.
//
// Each profile is built for a score, its flaw in its Redis code:
//
//   - correct: the key is claimed with SET NX and a lease that outlives
//     any stall, holding a token of this request; one Lua script then
//     checks that the key still holds the token, adds the payment and
//     stores the reply under the key, which Redis runs as one step. A
//     claim left by a crashed process (its token names another run of
//     the service) is taken over, and a claim whose script failed is
//     released; a claim of this run whose request is over (its SET NX,
//     held up on a stalled connection, landed after the request gave up
//     and released it) is taken over too: no finding, under every fault
//     it can take;
//   - any-status: as correct, but a failure is stored under the key too:
//     a 500 produced while Redis answered -ERR or -LOADING is replayed for
//     every retry after it has recovered;
//   - short-lease: the key is claimed with SET NX and a lease of 250ms,
//     then the payment and the reply are written in MULTI/EXEC without
//     checking that the claim is still this request's: a Redis that
//     stalls longer than the lease lets a retry take the key over and pay
//     again.
package redispay
