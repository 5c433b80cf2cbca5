// Package http is idemcheck's adapter for HTTP targets: it turns an attempt
// into a real request (method, path, headers and body templates filled with
// the intent's key, marker and generated inputs), sends it through a
// faults.Proxy on loopback so proxy faults can act on it, and reads the
// reply's status, effect field, result identity and replay marker.
//
// Everything that differs between real APIs is configurable: the key header
// (default Idempotency-Key), where the effect is (a JSON path or a header),
// where the identity is (default JSON path data.id), and how a dry run is
// asked for (a query parameter or a header).
package http
