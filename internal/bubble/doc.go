// Package bubble lets idemcheck run inside a bubble of testing/synctest,
// where time is Go's fake clock: a check that waits (a late retry's
// delay, a timeout, a pause between retries) costs no wall time there,
// and a handler's key store on time.Now sees the wait pass.
//
// A goroutine blocked on a real socket keeps a bubble's clock from
// moving, so inside a bubble idemcheck's servers take no connections
// over TCP: they serve in memory only (internal/memnet), and Listen holds
// their loopback address without listening on it, so that a dial to it
// is refused at once instead of hanging. The email fake's SMTP port has
// no memory listener: in a bubble it refuses too. A bubble is told by its
// clock: time.Now there is far from the system's clock, which the bubble
// does not fake. Holding an address needs a unix system; elsewhere a
// server in a bubble does not start, and says why.
package bubble
