package bubble_test

import (
	"errors"
	"net"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/internal/bubble"
)

// Outside a bubble nothing changes: In is false, and Listen listens.
func TestOutsideABubble(t *testing.T) {
	assert.False(t, bubble.In())
	ln, err := bubble.Listen("127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	accepted := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if c != nil {
			_ = c.Close()
		}
		accepted <- err
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	_ = c.Close()
	select {
	case err := <-accepted:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("the listener accepted nothing")
	}
}

// Inside a bubble, In is true even after the bubble's clock has moved on
// years, and Listen holds an address on which a dial is refused at once;
// Accept waits until Close, then says the listener is closed, and the
// address is free again.
func TestInsideABubble(t *testing.T) {
	var addr string
	synctest.Test(t, func(t *testing.T) {
		assert.True(t, bubble.In())
		ln, err := bubble.Listen("127.0.0.1:0")
		require.NoError(t, err)
		addr = ln.Addr().String()
		tcp, ok := ln.Addr().(*net.TCPAddr)
		require.True(t, ok)
		assert.True(t, tcp.IP.IsLoopback())
		assert.NotZero(t, tcp.Port)

		_, err = net.Dial("tcp", addr)
		assert.True(t, errors.Is(err, syscall.ECONNREFUSED), "a dial to a held address is refused: %v", err)
		// Another listener cannot take the address while it is held.
		if other, err := net.Listen("tcp", addr); err == nil {
			_ = other.Close()
			t.Errorf("%s was taken again while held", addr)
		}

		accepted := make(chan error, 1)
		go func() {
			_, err := ln.Accept()
			accepted <- err
		}()
		time.Sleep(2 * 365 * 24 * time.Hour) // on the bubble's clock: at once
		assert.True(t, bubble.In(), "two years on, still in the bubble")
		synctest.Wait()
		select {
		case <-accepted:
			t.Fatal("Accept returned before Close")
		default:
		}
		require.NoError(t, ln.Close())
		assert.True(t, errors.Is(<-accepted, net.ErrClosed))
		assert.NoError(t, ln.Close(), "a second Close changes nothing")
	})
	ln, err := net.Listen("tcp", addr)
	require.NoError(t, err, "closed, the address is free")
	_ = ln.Close()
}

// A held address is never every interface: an unspecified host is held
// on loopback.
func TestHeldOnLoopbackOnly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, addr := range []string{"0.0.0.0:0", ":0"} {
			ln, err := bubble.Listen(addr)
			require.NoError(t, err)
			assert.True(t, ln.Addr().(*net.TCPAddr).IP.IsLoopback(), "%s held at %s", addr, ln.Addr())
			require.NoError(t, ln.Close())
		}
	})
}
