package process

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
)

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago, for
// a target told where to listen. It is chosen below the kernel's ephemeral
// range (net.ipv4.ip_local_port_range), so that no listener on port 0 —
// the fakes, the fault proxy, another test's server — can be handed the
// same port between this call and the target's bind. Two callers may still
// draw the same port, with a chance of one in thousands; the target then
// fails to start and says why.
func FreePort() (int, error) {
	low := ephemeralLow()
	const floor = 10000
	if low-floor >= 1000 {
		for i := 0; i < 64; i++ {
			port := floor + rand.IntN(low-floor)
			l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
			if err != nil {
				continue // taken: draw again
			}
			if err := l.Close(); err != nil {
				return 0, fmt.Errorf("find a free port: close listener: %w", err)
			}
			return port, nil
		}
	}
	// A kernel whose ephemeral range leaves no room below it: let it choose.
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

// ephemeralLow returns the first port of the kernel's ephemeral range
// (32768 when it cannot be read).
func ephemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 32768
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 32768
	}
	n, err := strconv.Atoi(f[0])
	if err != nil || n <= 0 {
		return 32768
	}
	return n
}
