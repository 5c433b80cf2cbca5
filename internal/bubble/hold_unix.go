//go:build unix

package bubble

import (
	"fmt"
	"net"
	"syscall"
)

// hold binds a socket to addr and does not listen on it: the address is
// taken, as a listener's is, but the kernel refuses every connection to
// it at once.
func hold(addr string) (net.Listener, error) {
	ta, err := net.ResolveTCPAddr("tcp", addr)
	if err != nil {
		return nil, err
	}
	if ta.IP == nil || ta.IP.IsUnspecified() {
		ta.IP = net.IPv4(127, 0, 0, 1) // never every interface
	}
	family, sa := syscall.AF_INET, syscall.Sockaddr(nil)
	if ip4 := ta.IP.To4(); ip4 != nil {
		s := &syscall.SockaddrInet4{Port: ta.Port}
		copy(s.Addr[:], ip4)
		sa = s
	} else {
		family = syscall.AF_INET6
		s := &syscall.SockaddrInet6{Port: ta.Port}
		copy(s.Addr[:], ta.IP.To16())
		sa = s
	}
	// As the net package does: no process started meanwhile inherits it.
	syscall.ForkLock.RLock()
	fd, err := syscall.Socket(family, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.CloseOnExec(fd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, fmt.Errorf("hold %s: %w", addr, err)
	}
	// Without SO_REUSEADDR, which net.Listen sets: two sockets that both
	// set it may share a port neither listens on, and this one does not.
	if err := syscall.Bind(fd, sa); err != nil {
		_ = syscall.Close(fd)
		return nil, fmt.Errorf("hold %s: %w", addr, err)
	}
	bound, err := syscall.Getsockname(fd)
	if err != nil {
		_ = syscall.Close(fd)
		return nil, fmt.Errorf("hold %s: %w", addr, err)
	}
	var at *net.TCPAddr
	switch b := bound.(type) {
	case *syscall.SockaddrInet4:
		at = &net.TCPAddr{IP: net.IP(append([]byte(nil), b.Addr[:]...)), Port: b.Port}
	case *syscall.SockaddrInet6:
		at = &net.TCPAddr{IP: net.IP(append([]byte(nil), b.Addr[:]...)), Port: b.Port}
	default:
		_ = syscall.Close(fd)
		return nil, fmt.Errorf("hold %s: bound to an address of another family", addr)
	}
	return newHeld(at, func() error { return syscall.Close(fd) }), nil
}
