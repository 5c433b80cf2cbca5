package listener_test

import (
	"context"
	"io"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/idemcheck/idemcheck/deps"
	"github.com/idemcheck/idemcheck/deps/internal/listener"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// echo serves by echoing; it refuses by writing how.
type echo struct{ served chan uint64 }

func (e echo) Serve(ctx context.Context, id uint64, c net.Conn) {
	e.served <- id
	_, _ = io.Copy(c, c)
}

func (e echo) Refuse(ctx context.Context, id uint64, c net.Conn, how deps.Refusal) {
	_, _ = c.Write([]byte(how))
}

func TestServeRefuseClose(t *testing.T) {
	e := echo{served: make(chan uint64, 10)}
	s, err := listener.Listen("", e)
	require.NoError(t, err)
	s.Start()
	dial := func() net.Conn {
		c, err := net.Dial("tcp", s.Addr())
		require.NoError(t, err)
		require.NoError(t, c.SetDeadline(time.Now().Add(10*time.Second)))
		return c
	}
	c1 := dial()
	defer c1.Close()
	assert.Equal(t, uint64(1), <-e.served, "connections are numbered from 1")
	_, err = c1.Write([]byte("hi"))
	require.NoError(t, err)
	buf := make([]byte, 2)
	_, err = io.ReadFull(c1, buf)
	require.NoError(t, err)

	s.RefuseNew(deps.RefuseStarting, time.Hour)
	how, ok := s.Refusing()
	assert.True(t, ok)
	assert.Equal(t, deps.RefuseStarting, how)
	c2 := dial()
	got, err := io.ReadAll(c2)
	require.NoError(t, err, "refused, then closed by the server")
	assert.Equal(t, "starting", string(got))
	s.AcceptNew()
	_, ok = s.Refusing()
	assert.False(t, ok)
	s.RefuseNew(deps.RefuseReset, time.Nanosecond)
	_, ok = s.Refusing()
	assert.False(t, ok, "a window that is over refuses nothing")

	up, err := s.Dial(s.Addr(), time.Second)
	require.NoError(t, err, "a tracked connection to the database")
	<-e.served
	s.DropConnections()
	_, err = c1.Read(buf)
	assert.Error(t, err, "dropped")
	require.NoError(t, s.Close())
	_, err = up.Write([]byte("x"))
	assert.Error(t, err, "closed with the server")
	_, err = net.Dial("tcp", s.Addr())
	assert.Error(t, err, "no longer listening")
}
