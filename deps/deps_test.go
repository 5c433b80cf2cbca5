package deps_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/idemcheck/idemcheck/deps"
)

const (
	x = "idem-00000000000000aa"
	y = "idem-00000000000000bb"
)

func TestMarkers(t *testing.T) {
	cases := []struct {
		parts [][]byte
		want  []string
		why   string
	}{
		{nil, nil, "nothing, no marker"},
		{[][]byte{[]byte("INSERT INTO t VALUES ('" + x + "')")}, []string{x}, "a marker in the text"},
		{[][]byte{[]byte("k"), []byte(y), []byte(x + " " + y)}, []string{y, x}, "in the parameters, each once, in order"},
		{[][]byte{[]byte("idem-00000000000000a"), []byte("a")}, nil, "a marker split across parts is not one"},
		{[][]byte{[]byte("idem-00000000000000AA")}, nil, "markers are lower-case hex"},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, deps.Markers(tc.parts...), tc.why)
	}
	assert.Equal(t, []string{x}, deps.MarkersIn("key="+x))
	assert.Nil(t, deps.MarkersIn("no marker"))
}

// TestAttribute: markers first, then the transaction's intents, then the
// intent in flight.
func TestAttribute(t *testing.T) {
	c := deps.NewControl(nil)
	assert.Nil(t, c.Attribute(nil, nil), "nothing to go on")
	c.SetInFlight(y)
	assert.Equal(t, []string{y}, c.Attribute(nil, nil), "the intent in flight")
	assert.Equal(t, []string{x}, c.Attribute(nil, []string{x}), "the transaction's intent before the one in flight")
	assert.Equal(t, []string{x}, c.Attribute([]string{x}, []string{y}), "a marker before all")
	c.SetInFlight("")
	assert.Nil(t, c.Attribute(nil, nil))
}

func TestRules(t *testing.T) {
	var rs deps.Rules
	a, err := rs.Arm(deps.Rule{Intent: x, Action: deps.Fail, Times: 2})
	require.NoError(t, err)
	assert.False(t, rs.Has([]string{y}, deps.Fail), "armed for x only")
	assert.False(t, rs.Has([]string{x}, deps.Stall), "for Fail only")
	_, _, ok := rs.Take([]string{y}, deps.Fail)
	assert.False(t, ok)
	select {
	case <-a.Fired():
		t.Fatal("fired before it acted")
	default:
	}
	got, intent, ok := rs.Take([]string{y, x}, deps.Fail)
	require.True(t, ok)
	assert.Same(t, a, got)
	assert.Equal(t, x, intent)
	<-a.Fired()
	_, _, ok = rs.Take([]string{x}, deps.Fail)
	assert.True(t, ok)
	_, _, ok = rs.Take([]string{x}, deps.Fail)
	assert.False(t, ok, "Times 2: used up")
	assert.Equal(t, 2, a.Count())

	forever, err := rs.Arm(deps.Rule{Intent: x, Action: deps.Stall, Delay: time.Millisecond, Times: -1})
	require.NoError(t, err)
	for range 5 {
		_, _, ok := rs.Take([]string{x}, deps.Stall)
		require.True(t, ok)
	}
	assert.Equal(t, 5, forever.Count())
	rs.Disarm(x)
	assert.False(t, rs.Has([]string{x}, deps.Stall), "disarmed")

	_, _ = rs.Arm(deps.Rule{Intent: x, Action: deps.Fail})
	_, _ = rs.Arm(deps.Rule{Intent: y, Action: deps.Fail})
	rs.Disarm(x)
	assert.True(t, rs.Has([]string{y}, deps.Fail), "another intent's rules stay armed")
	rs.Clear()
	assert.False(t, rs.Has([]string{y}, deps.Fail))
}

func TestRuleValidate(t *testing.T) {
	hook := func(context.Context, deps.Event) {}
	cases := []struct {
		r  deps.Rule
		ok bool
	}{
		{deps.Rule{Intent: x, Action: deps.Fail}, true},
		{deps.Rule{Intent: x, Action: deps.ResetAfterCommit}, true},
		{deps.Rule{Intent: x, Action: deps.Stall, Delay: time.Second}, true},
		{deps.Rule{Intent: x, Action: deps.BeforeCommit, Hook: hook}, true},
		{deps.Rule{Intent: x, Action: deps.AfterCommitReply, Hook: hook}, true},
		{deps.Rule{Action: deps.Fail}, false},
		{deps.Rule{Intent: x, Action: deps.Stall}, false},
		{deps.Rule{Intent: x, Action: deps.AfterCommitReply}, false},
		{deps.Rule{Intent: x, Action: "explode"}, false},
	}
	for _, tc := range cases {
		err := tc.r.Validate()
		assert.Equal(t, tc.ok, err == nil, "%+v: %v", tc.r, err)
	}
	c := deps.NewControl(func(r deps.Rule) error {
		if r.Code == "bad" {
			return errors.New("bad code")
		}
		return nil
	})
	_, err := c.Arm(deps.Rule{Intent: x, Action: deps.Fail, Code: "bad"})
	assert.EqualError(t, err, "bad code", "the protocol's own check")
}

// TestEventsWait: a waiter finds an event already recorded, or wakes for
// one recorded later; a context's end says what was awaited.
func TestEventsWait(t *testing.T) {
	var es deps.Events
	es.Record(deps.Event{Kind: deps.EventWrite, Intent: x})
	ev, err := es.WaitFor(context.Background(), deps.EventWrite, x)
	require.NoError(t, err)
	assert.Equal(t, uint64(1), ev.Seq)
	assert.False(t, ev.At.IsZero())

	got := make(chan deps.Event)
	go func() {
		ev, _ := es.WaitFor(context.Background(), deps.EventCommit, y)
		got <- ev
	}()
	es.Record(deps.Event{Kind: deps.EventCommit, Intent: x})
	es.Record(deps.Event{Kind: deps.EventCommit, Intent: y})
	assert.Equal(t, uint64(3), (<-got).Seq)

	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	_, err = es.WaitFor(ctx, deps.EventCommitReplied, x)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Contains(t, err.Error(), "commit-replied event of "+x)
	assert.Contains(t, err.Error(), "commit "+y, "the error lists what was seen")

	es.Forget(x)
	for _, ev := range es.All() {
		assert.NotEqual(t, x, ev.Intent)
	}
	assert.Len(t, es.All(), 1)
}

// TestEventsBounded: the log keeps a bounded number of events, and a
// waiter still finds the newest.
func TestEventsBounded(t *testing.T) {
	var es deps.Events
	for i := range 40000 {
		es.Record(deps.Event{Kind: deps.EventStatement, Intent: fmt.Sprint(i)})
	}
	assert.LessOrEqual(t, len(es.All()), 1<<14)
	ev, err := es.WaitFor(context.Background(), deps.EventStatement, "39999")
	require.NoError(t, err)
	assert.Equal(t, uint64(40000), ev.Seq)
}

func TestEventsConcurrent(t *testing.T) {
	var es deps.Events
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for i := range 200 {
				es.Record(deps.Event{Kind: deps.EventWrite, Intent: fmt.Sprint(w, i)})
			}
		}()
		go func() {
			defer wg.Done()
			_, err := es.WaitFor(context.Background(), deps.EventWrite, fmt.Sprint(w, 199))
			assert.NoError(t, err)
		}()
	}
	wg.Wait()
	assert.Len(t, es.All(), 800)
}

func TestInsistsOnTLS(t *testing.T) {
	tls := deps.Event{Kind: deps.EventProblem, Err: fmt.Errorf("%w: gave up", deps.ErrClientRequiresTLS)}
	conn := deps.Event{Kind: deps.EventConnected}
	assert.NoError(t, deps.InsistsOnTLS(nil))
	assert.ErrorIs(t, deps.InsistsOnTLS([]deps.Event{conn, tls}), deps.ErrClientRequiresTLS, "declined, and never connected after")
	assert.NoError(t, deps.InsistsOnTLS([]deps.Event{tls, conn}), "declined, then connected in plain text")
}

func TestReplaceHost(t *testing.T) {
	got, err := deps.ReplaceHost("postgres://u:p%40ss@db.internal:5432/shop?sslmode=prefer", "127.0.0.1:4000")
	require.NoError(t, err)
	assert.Equal(t, "postgres://u:p%40ss@127.0.0.1:4000/shop?sslmode=prefer", got)
	got, err = deps.ReplaceHost("redis://:secret@cache:6379/2", "127.0.0.1:4001")
	require.NoError(t, err)
	assert.Equal(t, "redis://:secret@127.0.0.1:4001/2", got)
	_, err = deps.ReplaceHost("host=db port=5432", "127.0.0.1:1")
	assert.Error(t, err, "a key=value DSN has no host to replace")
}

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
