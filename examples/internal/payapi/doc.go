// Package payapi is the HTTP side shared by the reference payment services
// that keep their keys in a dependency (examples/pgpay on PostgreSQL,
// examples/redispay on Redis): the request they take, the replies they
// give and the loopback server they run.
//
//	POST /v1/payments  {"amount": 1200, "note": "…"}  Idempotency-Key: K
//	GET  /healthz
package payapi
