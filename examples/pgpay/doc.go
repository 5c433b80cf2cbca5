// Package pgpay is a reference payments service that keeps its payments
// and its idempotency keys in its own PostgreSQL database, reached at the
// URL in $DATABASE_URL (or --db): the service idemcheck's dependency
// faults are made for. idemcheck declares the database as a dependency,
// puts its proxy in front of it and hands the service the proxy's URL
// ({{deps.db.url}}); every payment row carries the request's note, so the
// proxy tells which intent a write belongs to by the marker in it.
//
// Each profile is built for a score, its flaw in its database code:
//
//   - correct: the key, the payment and the reply are written in one
//     transaction, the key first (a concurrent retry waits on it): no
//     finding, under every fault it can take;
//   - any-status: as correct, but a failure is stored under the key too:
//     a 500 produced while the database failed is replayed for every retry
//     after it has recovered;
//   - short-lease: the key is claimed in a transaction of its own with a
//     lease of 500ms, then the payment written: a database that stalls
//     longer than the lease lets a retry take the key over and pay again;
//   - reply-after-commit: the payment is committed, then the reply stored
//     under the key in a second transaction: a crash (or a lost commit
//     answer) between the two leaves a payment without its key, and the
//     retry pays again.
package pgpay
