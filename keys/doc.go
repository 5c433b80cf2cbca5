// Package keys makes the idempotency keys and intent markers a run sends.
//
// Every key and marker starts from a number drawn from the run's seeded
// random stream, so a seed reproduces every choice of a run (which
// operation, which inputs, which fault, which key is reused where). The
// number is then mixed with the run's nonce, a value drawn afresh for each
// run and recorded in its result: two runs with the same seed make the same
// choices but never the same keys or markers, so a key store that outlives
// a run (Redis, a database) never answers a second run with the first
// run's replies.
//
// A key's shape is a Format: "token" (idk- and 16 hex digits, the
// default), "uuid" (a random, version 4 UUID, the choice for services that
// validate keys), or a template such as "prefix-{{hex 16}}".
package keys
