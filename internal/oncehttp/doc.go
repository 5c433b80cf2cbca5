// Package oncehttp is an HTTP/1.1 client that sends every request at most
// once, over connections it keeps alive between requests: plain TCP for
// http:// URLs, TLS for https:// ones (verified against the system's roots
// or Client.TLS; a handshake that fails is a failure to connect, before a
// byte of the request).
//
// net/http's Transport sends a request again, on a new connection and
// without a word, when a reused connection fails before the reply and the
// request is "replayable": it has no body, or a body it can get again
// (GetBody), and its method is GET, HEAD, OPTIONS or TRACE or it carries an
// Idempotency-Key or X-Idempotency-Key header. Those are exactly the
// requests idemcheck sends, and a fault that resets a connection is
// exactly such a failure: the target would see the request twice, and the
// duplicate would be idemcheck's, not the target's. (It also re-sends a
// request of which not a byte was written, which is harmless; so does this
// client.) A request without a body cannot be made
// non-replayable without changing what goes on the wire (a POST would go
// chunked), so idemcheck does not use the Transport for requests to a
// target.
//
// This client writes a request once, reads its reply, and on any failure
// closes the connection and returns an *Error that says how far the
// request got: not connected, not written whole (the server cannot have
// acted on it), or written whole (it may have). The one request it sends
// again is one of which not a byte went out on a reused connection (the
// server closed it as the request was about to go): on a new connection. A connection is reused
// only when its reply was read to the end, neither side asked to close
// it, nothing more arrived, and a check just before the next request
// finds nothing waiting on it (the server has not closed it). An idle
// connection is closed by the client after IdleTimeout, shorter than the
// idle timeouts servers commonly use, and by CloseIdle: the client closes
// first, so the TIME_WAIT of the connection is its own and not the
// server's (a server that keeps it may drop the SYN of a later connection
// given the same client port, which is then sent again a second later).
//
// A header section is read in one pass over the bytes already buffered
// when it is plain (HTTP/1.1, lines ending in CRLF, token names, values
// without control characters, one Content-Length and no chunked or
// trailer framing; fasthead.go lists every condition), with one string
// for the whole section; any other section is read by net/http from the
// same bytes. ReadRequest does so for a server (the fault proxy reads its
// requests with it), and the client for its replies. What the one pass
// returns is what net/http returns: FuzzFastHeadMatchesNetHTTP compares
// the two.
//
// A request can also be sent in wire form (Client.DoWire): a proxy that
// passes on a plain request it holds whole scans it where it lies
// (ScanRequest) and writes the request that goes on from those spans
// (AppendRequest), byte for byte what writing it through an http.Request
// gives; a plain final reply that came whole is handed back where it lies
// in the read buffer, without an http.Response or a header map. The
// rules of sending are the same: written once, the same errors, the same
// check before a connection is reused.
//
// Every reply's header section is capped (MaxHeaderBytes, MaxHeaderLines):
// a server that sends more gets an error that says so, and the client
// holds no more than the caps in memory for it.
package oncehttp
