package tcpproxy_test

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/idemcheck/idemcheck/brokers/internal/tcpproxy"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// echo is a line echo server on loopback.
func echo(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_, _ = io.Copy(c, c)
			}()
		}
	}()
	t.Cleanup(func() { ln.Close(); <-done })
	return ln.Addr().String()
}

func roundTrip(t *testing.T, addr, line string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetDeadline(time.Now().Add(10*time.Second)))
	_, err = io.WriteString(c, line)
	require.NoError(t, err)
	got, err := bufio.NewReader(c).ReadString('\n')
	require.NoError(t, err)
	return got
}

func TestCopiesBothWaysByDefault(t *testing.T) {
	p, err := tcpproxy.Start(echo(t), tcpproxy.Pipes{})
	require.NoError(t, err)
	defer p.Close()
	assert.True(t, strings.HasPrefix(p.Addr(), "127.0.0.1:"))
	assert.Equal(t, "hello\n", roundTrip(t, p.Addr(), "hello\n"))
}

func TestPipeRewritesTraffic(t *testing.T) {
	upper := func(_ *tcpproxy.Conn, r *bufio.Reader, w *tcpproxy.Writer) error {
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				return err
			}
			if err := w.Write(bytes.ToUpper(line), true); err != nil {
				return err
			}
		}
	}
	p, err := tcpproxy.Start(echo(t), tcpproxy.Pipes{Up: upper})
	require.NoError(t, err)
	defer p.Close()
	assert.Equal(t, "HELLO\n", roundTrip(t, p.Addr(), "hello\n"))
}

func TestCloseEndsOpenConnections(t *testing.T) {
	p, err := tcpproxy.Start(echo(t), tcpproxy.Pipes{})
	require.NoError(t, err)
	c, err := net.Dial("tcp", p.Addr())
	require.NoError(t, err)
	defer c.Close()
	assert.Equal(t, "x\n", func() string {
		_, _ = io.WriteString(c, "x\n")
		s, _ := bufio.NewReader(c).ReadString('\n')
		return s
	}())
	require.NoError(t, p.Close())
	require.NoError(t, c.SetReadDeadline(time.Now().Add(10*time.Second)))
	_, err = c.Read(make([]byte, 1))
	assert.Error(t, err, "the client's connection is closed")
	_, err = net.DialTimeout("tcp", p.Addr(), time.Second)
	assert.Error(t, err, "nothing listens after Close")
}

func TestUnreachableUpstreamClosesTheClient(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	dead := ln.Addr().String()
	ln.Close()
	p, err := tcpproxy.Start(dead, tcpproxy.Pipes{})
	require.NoError(t, err)
	defer p.Close()
	c, err := net.Dial("tcp", p.Addr())
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetReadDeadline(time.Now().Add(10*time.Second)))
	_, err = c.Read(make([]byte, 1))
	assert.Error(t, err)
}
