// Package memnet is an in-memory network for one process: a listener
// registered under the address of a real loopback listener, and a dialer
// that reaches such an address through memory, without a socket, and any
// other address over TCP.
//
// A server that idemcheck runs in its own process (a fake, the fault
// proxy, a Go handler under test) listens on a real loopback port, which
// anything may call, and may also register that address here; a client
// of idemcheck's that dials through DialContext then reaches it in memory.
// Opening, accepting and closing a TCP connection, and the system calls of
// every read and write, cost as much as the rest of a trial; a connection
// in memory costs a few allocations and hand-offs between goroutines.
//
// A connection in memory behaves as a TCP connection does where it
// matters to idemcheck: writes are buffered (up to BufferSize a
// direction) so a writer does not wait for the reader, Close gives the
// peer EOF once it has read what was sent, SetLinger(0) before Close
// resets the connection (the peer's next read or write fails with
// ECONNRESET and what it had not read is dropped), and deadlines end
// blocked reads and writes with os.ErrDeadlineExceeded.
package memnet
