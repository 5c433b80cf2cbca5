package memnet_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/internal/memnet"
)

// waitLimit bounds every wait on an event: a deadline for a hang, not a
// timing assertion.
const waitLimit = 5 * time.Second

func pair(t *testing.T) (*memnet.Conn, *memnet.Conn) {
	t.Helper()
	a, b := memnet.Pair("a", "b")
	t.Cleanup(func() { _ = a.Close(); _ = b.Close() })
	return a, b
}

// TestWritesAreBufferedAndClosedEndsInOrder: a writer does not wait for
// its reader (up to BufferSize), and Close gives the reader what was sent,
// then EOF, and the writer's peer an error on its next write.
func TestWritesAreBufferedAndClosedEndsInOrder(t *testing.T) {
	a, b := pair(t)
	msg := strings.Repeat("x", memnet.BufferSize/2)
	n, err := a.Write([]byte(msg)) // nobody reads yet: must not block
	require.NoError(t, err)
	require.Equal(t, len(msg), n)
	require.NoError(t, a.Close())
	got, err := io.ReadAll(b)
	require.NoError(t, err)
	assert.Equal(t, msg, string(got))
	_, err = b.Write([]byte("late"))
	assert.ErrorIs(t, err, syscall.EPIPE)
	_, err = a.Read(make([]byte, 1))
	assert.ErrorIs(t, err, net.ErrClosed)
}

// TestAFullBufferWaitsForTheReader: past BufferSize, a write waits until
// the reader makes room, and then finishes whole.
func TestAFullBufferWaitsForTheReader(t *testing.T) {
	a, b := pair(t)
	msg := make([]byte, 3*memnet.BufferSize)
	wrote := make(chan error, 1)
	go func() {
		_, err := a.Write(msg)
		wrote <- err
	}()
	got := make([]byte, len(msg))
	_, err := io.ReadFull(b, got)
	require.NoError(t, err)
	select {
	case err := <-wrote:
		assert.NoError(t, err)
	case <-time.After(waitLimit):
		t.Fatal("the write never finished")
	}
}

// TestLingerZeroResets: with SetLinger(0), Close drops what the peer had
// not read and its next read fails with ECONNRESET, as a TCP reset does;
// without it the peer reads the bytes and then EOF.
func TestLingerZeroResets(t *testing.T) {
	a, b := pair(t)
	_, err := a.Write([]byte("unread"))
	require.NoError(t, err)
	require.NoError(t, a.SetLinger(0))
	require.NoError(t, a.Close())
	assert.True(t, b.Pending(), "a reset waits to be read")
	_, err = b.Read(make([]byte, 16))
	assert.ErrorIs(t, err, syscall.ECONNRESET)
	_, err = b.Write([]byte("x"))
	assert.ErrorIs(t, err, syscall.ECONNRESET)
}

// TestDeadlinesEndBlockedReadsAndCanBeLifted: a read deadline in the past
// ends a blocked read with os.ErrDeadlineExceeded (a timeout, as net/http
// expects when it aborts a background read); lifting it lets the next read
// wait for data again; a deadline in the future fires by itself.
func TestDeadlinesEndBlockedReadsAndCanBeLifted(t *testing.T) {
	a, b := pair(t)
	ended := make(chan error, 1)
	go func() {
		_, err := b.Read(make([]byte, 1))
		ended <- err
	}()
	require.NoError(t, b.SetReadDeadline(time.Unix(1, 0)))
	select {
	case err := <-ended:
		require.ErrorIs(t, err, os.ErrDeadlineExceeded)
		var ne net.Error
		require.True(t, errors.As(err, &ne) && ne.Timeout())
	case <-time.After(waitLimit):
		t.Fatal("a deadline in the past did not end the read")
	}
	require.NoError(t, b.SetReadDeadline(time.Time{}))
	_, err := a.Write([]byte("y"))
	require.NoError(t, err)
	buf := make([]byte, 1)
	_, err = b.Read(buf)
	require.NoError(t, err)
	assert.Equal(t, "y", string(buf))

	require.NoError(t, b.SetReadDeadline(time.Now().Add(10*time.Millisecond)))
	_, err = b.Read(buf)
	assert.ErrorIs(t, err, os.ErrDeadlineExceeded)
	assert.False(t, b.Pending(), "nothing waits to be read")
}

// TestDialReachesARegisteredAddressInMemoryAndAnyOtherOverTCP: an HTTP
// server served on a memnet listener answers a client dialing through
// DialContext; once the listener is closed the address is refused in
// memory and dialed over TCP again.
func TestDialReachesARegisteredAddressInMemoryAndAnyOtherOverTCP(t *testing.T) {
	tcp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "tcp")
	}))
	defer tcp.Close()
	addr := strings.TrimPrefix(tcp.URL, "http://")
	ln, err := memnet.Listen(addr)
	require.NoError(t, err)
	_, err = memnet.Listen(addr)
	require.Error(t, err, "one listener in memory per address")
	mem := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "memory "+r.RemoteAddr)
	}), ReadHeaderTimeout: waitLimit}
	served := make(chan error, 1)
	go func() { served <- mem.Serve(ln) }()

	tr := &http.Transport{DialContext: memnet.DialContext}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr, Timeout: waitLimit}
	get := func() string {
		resp, err := c.Get(tcp.URL)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return string(b)
	}
	assert.True(t, memnet.Registered(addr))
	assert.Contains(t, get(), "memory memory:")
	require.NoError(t, mem.Close())
	assert.ErrorIs(t, <-served, http.ErrServerClosed)
	assert.False(t, memnet.Registered(addr))
	tr.CloseIdleConnections()
	assert.Equal(t, "tcp", get())

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ln2, err := memnet.Listen(addr)
	require.NoError(t, err)
	defer ln2.Close()
	_, err = memnet.DialContext(ctx, "tcp", addr)
	assert.ErrorIs(t, err, context.Canceled, "a dial whose context ended")
}

// TestDeadlinesMovedLaterOrEarlierHold: the timer stays where it was when
// a deadline moves later (it waits again when it fires), and moves when
// a deadline comes earlier; either way a read ends at the deadline last
// set, not before, and a deadline removed ends nothing.
func TestDeadlinesMovedLaterOrEarlierHold(t *testing.T) {
	_, b := pair(t)
	buf := make([]byte, 1)
	start := time.Now()
	require.NoError(t, b.SetReadDeadline(start.Add(20*time.Millisecond)))
	later := start.Add(150 * time.Millisecond)
	require.NoError(t, b.SetReadDeadline(later))
	_, err := b.Read(buf)
	assert.ErrorIs(t, err, os.ErrDeadlineExceeded)
	assert.False(t, time.Now().Before(later), "the read ended at the first deadline, not the one it was moved to")

	start = time.Now()
	require.NoError(t, b.SetReadDeadline(start.Add(time.Hour)))
	require.NoError(t, b.SetReadDeadline(start.Add(20*time.Millisecond)))
	_, err = b.Read(buf)
	assert.ErrorIs(t, err, os.ErrDeadlineExceeded)
	assert.Less(t, time.Since(start), waitLimit, "a deadline moved earlier must end the read")

	a, b := pair(t)
	require.NoError(t, b.SetReadDeadline(time.Now().Add(10*time.Millisecond)))
	require.NoError(t, b.SetReadDeadline(time.Time{}))
	read := make(chan error, 1)
	go func() {
		_, err := b.Read(buf)
		read <- err
	}()
	// The removed deadline's timer fires while the read waits; then a
	// byte comes, and the read gets it.
	deadlinePassed := time.Now().Add(30 * time.Millisecond)
	for time.Now().Before(deadlinePassed) {
		select {
		case err := <-read:
			t.Fatalf("a removed deadline ended the read: %v", err)
		case <-time.After(time.Until(deadlinePassed)):
		}
	}
	_, err = a.Write([]byte("z"))
	require.NoError(t, err)
	select {
	case err := <-read:
		require.NoError(t, err)
	case <-time.After(waitLimit):
		t.Fatal("the read did not get the byte")
	}
}

// TestPeerWaitingSaysTheReaderReadEverythingAndWaits: PeerWaiting is
// false while bytes wait to be read or the peer is busy elsewhere, and
// true once the peer has read them all and waits in Read for more;
// PeerParked wakes whoever waits for that.
func TestPeerWaitingSaysTheReaderReadEverythingAndWaits(t *testing.T) {
	a, b := pair(t)
	assert.False(t, a.PeerWaiting(), "nobody reads yet")
	_, err := a.Write([]byte("head"))
	require.NoError(t, err)
	got := make(chan string, 2)
	go func() {
		buf := make([]byte, 16)
		for {
			n, err := b.Read(buf)
			if err != nil {
				close(got)
				return
			}
			got <- string(buf[:n])
		}
	}()
	deadline := time.NewTimer(waitLimit)
	defer deadline.Stop()
	for !a.PeerWaiting() {
		select {
		case <-a.PeerParked():
		case <-deadline.C:
			t.Fatal("the reader read the head and waits, but PeerWaiting never said so")
		}
	}
	assert.Equal(t, "head", <-got)
	_, err = a.Write([]byte("tail"))
	require.NoError(t, err)
	assert.Equal(t, "tail", <-got)
	require.NoError(t, b.Close())
	_, ok := <-got
	assert.False(t, ok)
}
