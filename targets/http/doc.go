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
//
// Calls go to the proxy over connections kept alive, through a client that
// sends every request at most once (internal/oncehttp: net/http's
// Transport would send a keyed request again, silently, when a reused
// connection dies before the reply), and the proxy forwards the same way.
// Every reply's header section is capped (faults.MaxReplyHeaderBytes and
// MaxReplyHeaderLines): a target that sends more gets an attempt recorded
// as a reply not read whole.
//
// Spec puts the adapter in front of a server at a URL, started by the
// harness (Launch) or already running, on real loopback sockets;
// HandlerSpec in front of an http.Handler served in the test's own
// process, and CheckHandler runs harness.Check on one in go test, with the
// payments fake (handler.go): the handler, the fakes and the proxy are
// then reached in memory (internal/memnet), without a socket.
// A target may run as several instances over one store (Launch.Replicas,
// replicas.go): each behind its own proxy, reached in turn by sequential
// attempts, a burst's copies split among them. It may serve several
// callers (Config.Callers, callers.go), each identified by its own headers.
//
// The configuration file's http kind is package targets/http/httpconfig,
// so that a Go test of a handler does not build the configuration's
// schema, observers and drivers.
package http
