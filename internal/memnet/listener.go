package memnet

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
)

// The listeners registered in this process, by address.
var (
	mu        sync.Mutex
	listeners = map[string]*Listener{}
	// nextPort numbers the clients' ends of connections, for their
	// addresses.
	nextPort atomic.Uint32
)

// Listener accepts connections in memory for one address.
type Listener struct {
	addr    Addr
	conns   chan *Conn
	done    chan struct{}
	closeMu sync.Once
}

// Listen registers a listener in memory for addr, the host:port of a real
// loopback listener that this process holds (so that no other process can
// listen there while it is registered). Close unregisters it.
func Listen(addr string) (*Listener, error) {
	mu.Lock()
	defer mu.Unlock()
	if _, taken := listeners[addr]; taken {
		return nil, fmt.Errorf("memnet: %s is already listened on in memory", addr)
	}
	l := &Listener{addr: Addr(addr), conns: make(chan *Conn), done: make(chan struct{})}
	listeners[addr] = l
	return l, nil
}

// Accept implements net.Listener.
func (l *Listener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, &net.OpError{Op: "accept", Net: "memory", Addr: l.addr, Err: net.ErrClosed}
	}
}

// Close implements net.Listener: the address is no longer reached in
// memory. Connections already accepted stay open.
func (l *Listener) Close() error {
	l.closeMu.Do(func() {
		mu.Lock()
		if listeners[string(l.addr)] == l {
			delete(listeners, string(l.addr))
		}
		mu.Unlock()
		close(l.done)
	})
	return nil
}

// Addr implements net.Listener.
func (l *Listener) Addr() net.Addr { return l.addr }

// dial hands the server's end of a new connection to the listener's
// Accept and returns the client's.
func (l *Listener) dial(ctx context.Context) (*Conn, error) {
	if err := ctx.Err(); err != nil {
		return nil, &net.OpError{Op: "dial", Net: "memory", Addr: l.addr, Err: err}
	}
	client := Addr("memory:" + strconv.FormatUint(uint64(nextPort.Add(1)), 10))
	c, s := Pair(client, l.addr)
	select {
	case l.conns <- s:
		return c, nil
	case <-l.done:
		return nil, &net.OpError{Op: "dial", Net: "memory", Addr: l.addr, Err: errRefused}
	case <-ctx.Done():
		return nil, &net.OpError{Op: "dial", Net: "memory", Addr: l.addr, Err: ctx.Err()}
	}
}

// errRefused is what dialing a listener that closed meanwhile gives, as
// dialing a closed TCP port does.
var errRefused error = syscall.ECONNREFUSED

// Registered says whether addr is listened on in memory.
func Registered(addr string) bool {
	mu.Lock()
	defer mu.Unlock()
	return listeners[addr] != nil
}

// DialContext connects to addr in memory when a listener is registered
// for it, and over the network otherwise (network is then "tcp", as
// net.Dialer takes it). Its signature is net/http's Transport.DialContext.
func DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	mu.Lock()
	l := listeners[addr]
	mu.Unlock()
	if l != nil {
		return l.dial(ctx)
	}
	var d net.Dialer
	return d.DialContext(ctx, network, addr)
}
