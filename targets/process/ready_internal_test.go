package process

import (
	"context"
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadinessNeverLooksUpLocalhost: the name localhost is taken for
// 127.0.0.1 as it is written, before any resolver could answer for it;
// every other address is dialled as written.
func TestReadinessNeverLooksUpLocalhost(t *testing.T) {
	assert.Equal(t, "127.0.0.1:8080", loopbackAddr("localhost:8080"))
	assert.Equal(t, "127.0.0.1:8080", loopbackAddr("LocalHost:8080"))
	assert.Equal(t, "[::1]:8080", loopbackAddr("[::1]:8080"))
	assert.Equal(t, "127.0.0.2:9", loopbackAddr("127.0.0.2:9"))
	assert.Equal(t, "localhost", loopbackAddr("localhost"), "no port: left for the dialer to refuse")

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	p := newProber(Ready{URL: "", Addr: "localhost:" + port})
	defer p.close()
	require.NoError(t, p.check(context.Background()), "a listener on 127.0.0.1 is ready at localhost")
}
