package payments_test

import (
	"fmt"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/fakes/payments"
)

func TestServerIsAFake(t *testing.T) {
	var f fakes.Fake = payments.Start(t)
	assert.Equal(t, "payments", f.Name())
	assert.True(t, strings.HasPrefix(f.URL(), "http://127.0.0.1:"), f.URL())
	assert.NotNil(t, f.Ledger())
}

func TestNewRejectsNonLoopback(t *testing.T) {
	for _, addr := range []string{
		":0",            // every interface
		"0.0.0.0:0",     // every IPv4 interface
		"[::]:0",        // every IPv6 interface
		"192.0.2.1:0",   // someone else's address
		"example.com:0", // names other than localhost
		"127.0.0.1",     // no port
	} {
		t.Run(addr, func(t *testing.T) {
			s, err := payments.New(payments.Options{Addr: addr})
			require.Error(t, err)
			assert.Nil(t, s)
			assert.Contains(t, err.Error(), addr, "the error names the address")
		})
	}
}

func TestNewAcceptsLoopback(t *testing.T) {
	for _, addr := range []string{"", "127.0.0.1:0", "127.0.0.2:0", "localhost:0"} {
		t.Run(addr, func(t *testing.T) {
			s, err := payments.New(payments.Options{Addr: addr})
			if addr == "127.0.0.2:0" && err != nil {
				t.Skipf("127.0.0.2 is not configured here: %v", err)
			}
			require.NoError(t, err)
			t.Cleanup(func() { assert.NoError(t, s.Close()) })
			chargeOf(t, post(t, newClient(t), s, formType, form("amount", "1")))
		})
	}
}

func TestNewListenError(t *testing.T) {
	taken := payments.Start(t)
	addr := strings.TrimPrefix(taken.URL(), "http://")
	_, err := payments.New(payments.Options{Addr: addr})
	require.Error(t, err, "the port is in use")
	assert.Contains(t, err.Error(), addr)
}

func TestSharedLedger(t *testing.T) {
	l := fakes.NewLedger()
	a := payments.Start(t, payments.Options{Ledger: l})
	b := payments.Start(t, payments.Options{Ledger: l})
	c := newClient(t)
	assert.Same(t, l, a.Ledger())

	chargeOf(t, post(t, c, a, formType, form("amount", "1", "description", markerA)))
	chargeOf(t, post(t, c, b, formType, form("amount", "2", "description", markerB)))

	effects := l.Effects()
	require.Len(t, effects, 2)
	assert.Equal(t, []int64{1, 2}, []int64{effects[0].Seq, effects[1].Seq}, "one sequence across fakes")
	assert.Equal(t, "ch_000001", effects[0].ID)
	assert.Equal(t, "ch_000001", effects[1].ID, "charge ids are per server")
	assert.Equal(t, []string{markerB}, effects[1].Markers)
}

func TestObserverRunsBeforeReply(t *testing.T) {
	s := payments.Start(t)
	h := holdFirstEffect(t, s.Ledger())
	c := newClient(t)

	done := make(chan result, 1)
	go func() {
		done <- send(t.Context(), c, http.MethodPost, s.URL()+"/v1/charges", formType, form("amount", "100"))
	}()
	recv(t, h.entered, "the observer to run")

	// The charge is recorded and visible, and the client has no reply: the
	// handler is inside Record, before any byte of the reply is written.
	assert.Len(t, s.Ledger().Effects(), 1)
	assert.Len(t, s.Charges(), 1)
	select {
	case r := <-done:
		t.Fatalf("the client got a reply while the observer was running: %+v", r)
	default:
	}

	h.release()
	r := recv(t, done, "the reply")
	require.NoError(t, r.err)
	assert.Equal(t, "ch_000001", chargeOf(t, r).ID)
}

func TestCloseWaitsForInFlight(t *testing.T) {
	s := payments.Start(t)
	h := holdFirstEffect(t, s.Ledger())
	c := newClient(t)
	host := strings.TrimPrefix(s.URL(), "http://")

	done := make(chan result, 1)
	go func() {
		done <- send(t.Context(), c, http.MethodPost, s.URL()+"/v1/charges", formType, form("amount", "100"))
	}()
	recv(t, h.entered, "the charge to be held")

	closeDone := make(chan error, 1)
	go func() { closeDone <- s.Close() }()

	// Close has begun once the listener refuses connections.
	deadline := time.Now().Add(waitLimit)
	for {
		conn, err := net.Dial("tcp", host)
		if err != nil {
			break
		}
		_ = conn.Close()
		require.True(t, time.Now().Before(deadline), "Close never stopped the listener")
		runtime.Gosched()
	}
	select {
	case err := <-closeDone:
		t.Fatalf("Close returned (%v) while a request was in flight", err)
	default:
	}

	h.release()
	r := recv(t, done, "the in-flight request's reply")
	require.NoError(t, r.err, "Close let the in-flight request finish")
	assert.Equal(t, "ch_000001", chargeOf(t, r).ID)
	require.NoError(t, recv(t, closeDone, "Close to return"))

	assert.NoError(t, s.Close(), "Close is idempotent")
	after := send(t.Context(), c, http.MethodPost, s.URL()+"/v1/charges", formType, form("amount", "100"))
	assert.Error(t, after.err, "a closed server takes no requests")
}

func TestCloseConcurrent(t *testing.T) {
	s, err := payments.New(payments.Options{})
	require.NoError(t, err)
	var wg sync.WaitGroup
	errs := make(chan error, 10)
	for range 10 {
		wg.Go(func() { errs <- s.Close() })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		assert.NoError(t, err)
	}
}

func TestChargesIsACopy(t *testing.T) {
	s := payments.Start(t)
	chargeOf(t, post(t, newClient(t), s, formType, form("amount", "100", "metadata[k]", "v")))

	got := s.Charges()
	got[0].Metadata["k"] = "changed"
	got[0].Amount = 1
	assert.Equal(t, "v", s.Charges()[0].Metadata["k"])
	assert.Equal(t, int64(100), s.Charges()[0].Amount)
}

// fakeTB records what Start does with its TB.
type fakeTB struct {
	fatals   []string
	cleanups []func()
}

func (*fakeTB) Helper() {}

func (tb *fakeTB) Fatalf(format string, args ...any) {
	tb.fatals = append(tb.fatals, fmt.Sprintf(format, args...))
}

func (tb *fakeTB) Cleanup(f func()) { tb.cleanups = append(tb.cleanups, f) }

func TestStart(t *testing.T) {
	t.Run("closes at cleanup", func(t *testing.T) {
		tb := &fakeTB{}
		s := payments.Start(tb)
		require.NotNil(t, s)
		require.Empty(t, tb.fatals)
		require.Len(t, tb.cleanups, 1)
		chargeOf(t, post(t, newClient(t), s, formType, form("amount", "1")))

		tb.cleanups[0]()
		assert.Empty(t, tb.fatals, "a clean Close fails nothing")
		r := send(t.Context(), newClient(t), http.MethodGet, s.URL()+"/v1/charges", "", "")
		assert.Error(t, r.err, "the server is closed")
	})
	t.Run("fails on bad options", func(t *testing.T) {
		tb := &fakeTB{}
		s := payments.Start(tb, payments.Options{Addr: "0.0.0.0:0"})
		assert.Nil(t, s)
		require.Len(t, tb.fatals, 1)
		assert.Contains(t, tb.fatals[0], "not loopback")
		assert.Empty(t, tb.cleanups)
	})
	t.Run("fails on two options", func(t *testing.T) {
		tb := &fakeTB{}
		assert.Nil(t, payments.Start(tb, payments.Options{}, payments.Options{}))
		require.Len(t, tb.fatals, 1)
		assert.Contains(t, tb.fatals[0], "at most 1")
	})
}
