//go:build !unix

package bubble

import (
	"fmt"
	"net"
)

// hold is not offered here: an address taken by a listener that never
// accepts would leave a dial to it waiting on a real socket, which holds
// a bubble's clock still.
func hold(addr string) (net.Listener, error) {
	return nil, fmt.Errorf("listen on %s: serving in a bubble of testing/synctest needs a unix system", addr)
}
