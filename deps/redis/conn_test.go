package redis_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/deps"
	"github.com/idemcheck/idemcheck/deps/internal/tcptest"
	"github.com/idemcheck/idemcheck/deps/redis"
)

// TestStartChecksRedis: a dependency that does not answer PING, or
// answers in another protocol, is an error from Start, not a hang.
func TestStartChecksRedis(t *testing.T) {
	cases := []struct {
		name  string
		serve func(net.Conn)
		want  error
	}{
		{"silent", func(c net.Conn) { _, _ = io.Copy(io.Discard, c) }, deps.ErrUpstreamSilent},
		{"http", func(c net.Conn) {
			_, _ = c.Read(make([]byte, 64))
			_, _ = c.Write([]byte("HTTP/1.1 400 Bad Request\r\n\r\n"))
		}, deps.ErrUpstreamProtocol},
		{"postgres", func(c net.Conn) {
			_, _ = c.Read(make([]byte, 64))
			_, _ = c.Write([]byte("E\x00\x00\x00\x10SFATAL\x00\x00"))
		}, deps.ErrUpstreamProtocol},
		{"closes", func(c net.Conn) {}, deps.ErrUpstreamProtocol},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := redis.Start(ctxT(t), redis.Config{Upstream: tcptest.Serve(t, tc.serve), DialTimeout: 300 * time.Millisecond})
			assert.ErrorIs(t, err, tc.want)
		})
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	_, err = redis.Start(ctxT(t), redis.Config{Upstream: addr})
	assert.ErrorIs(t, err, deps.ErrUpstreamUnreachable)
}

// TestUpstreamTurnsStrange: a dependency that passed Start's check but
// answers a command with something that is not RESP ends the connection
// with an -ERR that says so, and a problem event.
func TestUpstreamTurnsStrange(t *testing.T) {
	addr := tcptest.Serve(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		line, _ := br.ReadString('\n')
		if line == "PING\r\n" {
			_, _ = c.Write([]byte("+PONG\r\n"))
			return
		}
		_, _ = c.Write([]byte("HTTP/1.1 200 OK\r\n"))
		_, _ = io.Copy(io.Discard, br)
	})
	p := startProxy(t, redis.Config{Upstream: addr})
	c, err := net.Dial("tcp", p.Addr())
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetDeadline(time.Now().Add(20*time.Second)))
	_, err = c.Write([]byte("GET k\r\n"))
	require.NoError(t, err)
	reply, err := io.ReadAll(c)
	require.NoError(t, err, "the proxy closes the connection")
	assert.Regexp(t, `^-ERR idemcheck proxy: .*is it Redis\?\r\n$`, string(reply))
	ctx := ctxT(t)
	ev, err := p.Control().Events().WaitFor(ctx, deps.EventProblem, "")
	require.NoError(t, err)
	assert.ErrorIs(t, ev.Err, deps.ErrUpstreamProtocol)
}

// TestLargeReplyIsStreamed: a 1 GiB bulk string from Redis is forwarded as
// it arrives: the target reads its first megabytes while the rest has not
// been sent.
func TestLargeReplyIsStreamed(t *testing.T) {
	const sent = 8 << 20
	release := make(chan struct{})
	addr := tcptest.Serve(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		line, _ := br.ReadString('\n')
		if line == "PING\r\n" {
			_, _ = c.Write([]byte("+PONG\r\n"))
			return
		}
		_, _ = c.Write([]byte(fmt.Sprintf("$%d\r\n", 1<<30)))
		chunk := make([]byte, 1<<20)
		for range sent / len(chunk) {
			if _, err := c.Write(chunk); err != nil {
				return
			}
		}
		<-release
	})
	defer close(release)
	p := startProxy(t, redis.Config{Upstream: addr})
	c, err := net.Dial("tcp", p.Addr())
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetDeadline(time.Now().Add(20*time.Second)))
	_, err = c.Write([]byte("GET big\r\n"))
	require.NoError(t, err)
	head := fmt.Sprintf("$%d\r\n", 1<<30)
	got := make([]byte, len(head)+sent)
	_, err = io.ReadFull(c, got)
	require.NoError(t, err, "the first %d bytes arrive before the rest is sent", sent)
	assert.Equal(t, head, string(got[:len(head)]))
}

// TestTooLargeCommand: a command larger than the proxy reads whole is
// forwarded unattributed and reported; a smaller one is attributed.
func TestTooLargeCommand(t *testing.T) {
	p := startProxy(t, redis.Config{MaxCommand: 1024})
	c, d := client(t, p.Addr(), 2), direct(t)
	ctx := ctxT(t)
	x, kx := marker()
	a := arm(t, p, deps.Rule{Intent: x, Action: deps.Fail, Times: -1})
	big := strings.Repeat("v", 4096)
	require.NoError(t, c.Set(ctx, kx, big, 0).Err(), "too large to inspect: forwarded")
	assert.Equal(t, big, d.Get(ctx, kx).Val())
	assert.Equal(t, 0, a.Count())
	ev, err := p.Control().Events().WaitFor(ctx, deps.EventProblem, "")
	require.NoError(t, err)
	assert.ErrorIs(t, ev.Err, deps.ErrTooLarge)
	assert.Error(t, c.Set(ctx, kx, "small", 0).Err())
	assert.Equal(t, 1, a.Count())
}

// TestInlineCommands: inline commands (a client typing into a socket) are
// relayed and attributed too.
func TestInlineCommands(t *testing.T) {
	p := startProxy(t, redis.Config{})
	x, kx := marker()
	arm(t, p, deps.Rule{Intent: x, Action: deps.Fail, Code: "READONLY"})
	c, err := net.Dial("tcp", p.Addr())
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetDeadline(time.Now().Add(20*time.Second)))
	br := bufio.NewReader(c)
	_, err = c.Write([]byte("PING\r\n\r\nSET " + kx + " v\r\nEXISTS " + kx + "\r\n"))
	require.NoError(t, err)
	for _, want := range []string{"+PONG\r\n", "-READONLY You can't write against a read only replica.\r\n", ":0\r\n"} {
		line, err := br.ReadString('\n')
		require.NoError(t, err)
		assert.Equal(t, want, line)
	}
}
