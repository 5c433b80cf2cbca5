package process

import (
	"fmt"
	"net"
)

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago: it
// listens on port 0, reads the port the kernel chose and closes the
// listener. Another process may take the port before the target does; the
// kernel makes that unlikely by not handing out recently used ports.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: listen on 127.0.0.1:0: %w", err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	if err := l.Close(); err != nil {
		return 0, fmt.Errorf("find a free port: close listener: %w", err)
	}
	return port, nil
}
