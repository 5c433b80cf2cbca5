// Package drain closes an http.Server once the requests it is serving have
// ended, without waiting for connections that never sent one.
//
// http.Server.Shutdown counts a connection that has not yet sent its first
// request as busy until it is five seconds old, and an HTTP client's
// transport often dials such a connection and keeps it unused (it dialled
// for a request that another connection then served). A fake, a fault proxy
// or a reference server closed right after a run would then wait seconds for
// nothing, and a run's length would depend on when the last connection was
// dialled. A Tracker counts the requests in flight instead: Close waits for
// them, within a bound, then cuts every connection.
package drain
