package deps

import "errors"

// The problems a proxy reports (EventProblem); match them with errors.Is.
var (
	// ErrClientRequiresTLS: the target asked for TLS to its database, was
	// declined, and gave up on that connection. The proxy speaks plain
	// text only, so a target that insists cannot be tested through it;
	// one that merely prefers TLS connects again in plain text (pgx does,
	// with sslmode=prefer), so judge with InsistsOnTLS, not by the
	// problem alone.
	ErrClientRequiresTLS = errors.New("the target insists on TLS to its database")
	// ErrUpstreamUnreachable: the real database refused the proxy's
	// connection or could not be dialled.
	ErrUpstreamUnreachable = errors.New("the database cannot be reached")
	// ErrUpstreamSilent: the real database accepted the connection but
	// did not answer in time.
	ErrUpstreamSilent = errors.New("the database does not answer")
	// ErrUpstreamProtocol: what answered does not speak the protocol the
	// dependency was declared with.
	ErrUpstreamProtocol = errors.New("the dependency speaks another protocol")
	// ErrClientProtocol: the target sent something the protocol does not
	// allow.
	ErrClientProtocol = errors.New("the target broke the protocol")
	// ErrTooLarge: a message was larger than the proxy inspects; it was
	// forwarded without being attributed.
	ErrTooLarge = errors.New("a message too large to inspect")
)
