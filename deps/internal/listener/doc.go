// Package listener is the part of a dependency proxy that is not about its
// protocol: the listening socket on loopback, one goroutine per target
// connection, the connections to the real database dialled for them, the
// window in which new connections are refused, and a Close that closes
// every connection and waits for every goroutine.
package listener
