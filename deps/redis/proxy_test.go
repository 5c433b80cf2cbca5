package redis_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/deps"
	"github.com/idemcheck/idemcheck/deps/redis"
)

// TestPassThrough: commands, pipelines, transactions and large values go
// through the proxy in both RESP versions as they would go to Redis.
func TestPassThrough(t *testing.T) {
	p := startProxy(t, redis.Config{})
	for _, proto := range protocols {
		c := client(t, p.Addr(), proto)
		ctx := ctxT(t)
		_, k := marker()
		require.NoError(t, c.Set(ctx, k, "v", 0).Err())
		v, err := c.Get(ctx, k).Result()
		require.NoError(t, err)
		assert.Equal(t, "v", v)
		require.NoError(t, c.HSet(ctx, k+":h", "a", "1", "b", "2").Err())
		h, err := c.HGetAll(ctx, k+":h").Result()
		require.NoError(t, err)
		assert.Equal(t, map[string]string{"a": "1", "b": "2"}, h, "a map in RESP3")
		id, err := c.XAdd(ctx, &goredis.XAddArgs{Stream: k + ":s", Values: []any{"f", "v"}}).Result()
		require.NoError(t, err)
		assert.NotEmpty(t, id)
		big := strings.Repeat("b", 3<<20)
		require.NoError(t, c.Set(ctx, k+":big", big, 0).Err())
		got, err := c.Get(ctx, k+":big").Result()
		require.NoError(t, err)
		assert.Equal(t, len(big), len(got))
		cmds, err := c.TxPipelined(ctx, func(pipe goredis.Pipeliner) error {
			pipe.Incr(ctx, k+":n")
			pipe.Incr(ctx, k+":n")
			return nil
		})
		require.NoError(t, err)
		assert.Equal(t, int64(2), cmds[1].(*goredis.IntCmd).Val())
		_, err = c.Get(ctx, k+":missing").Result()
		assert.ErrorIs(t, err, goredis.Nil)
	}
}

// TestFailWrite: the armed intent's write is answered with the rule's
// error and not run; a read of the same intent and another intent's write
// are untouched; a pipeline keeps its replies in order.
func TestFailWrite(t *testing.T) {
	for _, proto := range protocols {
		p := startProxy(t, redis.Config{})
		c, d := client(t, p.Addr(), proto), direct(t)
		ctx := ctxT(t)
		x, kx := marker()
		_, ky := marker()
		a := arm(t, p, deps.Rule{Intent: x, Action: deps.Fail, Code: "LOADING", Times: 2})

		_, err := c.Get(ctx, kx).Result()
		assert.ErrorIs(t, err, goredis.Nil, "a read is not a write")
		err = c.Set(ctx, kx, "v", 0).Err()
		require.Error(t, err)
		assert.Equal(t, "LOADING Redis is loading the dataset in memory", err.Error())
		assert.ErrorIs(t, d.Get(ctx, kx).Err(), goredis.Nil, "the failed write did not run")

		cmds, err := c.Pipelined(ctx, func(pipe goredis.Pipeliner) error {
			pipe.Set(ctx, ky, "y", 0)
			pipe.Set(ctx, kx, "x", 0)
			pipe.Get(ctx, ky)
			return nil
		})
		require.Error(t, err)
		assert.NoError(t, cmds[0].Err())
		assert.ErrorContains(t, cmds[1].Err(), "LOADING")
		assert.Equal(t, "y", cmds[2].(*goredis.StringCmd).Val(), "replies stay in their places")
		assert.Equal(t, 2, a.Count())

		require.NoError(t, c.Set(ctx, kx, "v", 0).Err(), "used up")
	}
}

// TestFailWriteInMulti: a write failed inside MULTI makes EXEC fail, as
// Redis does for a command rejected while queued: nothing of the
// transaction runs.
func TestFailWriteInMulti(t *testing.T) {
	p := startProxy(t, redis.Config{})
	c, d := client(t, p.Addr(), 3), direct(t)
	ctx := ctxT(t)
	x, kx := marker()
	_, ky := marker()
	arm(t, p, deps.Rule{Intent: x, Action: deps.Fail})
	_, err := c.TxPipelined(ctx, func(pipe goredis.Pipeliner) error {
		pipe.Set(ctx, ky, "y", 0)
		pipe.Set(ctx, kx, "x", 0)
		return nil
	})
	require.Error(t, err)
	assert.ErrorIs(t, d.Get(ctx, ky).Err(), goredis.Nil, "EXEC ran nothing")
	assert.ErrorIs(t, d.Get(ctx, kx).Err(), goredis.Nil)
	require.NoError(t, c.Set(ctx, ky, "y", 0).Err(), "the connection goes on")
}

// TestFailInFlight: a command with no marker is the intent in flight's.
func TestFailInFlight(t *testing.T) {
	p := startProxy(t, redis.Config{})
	c := client(t, p.Addr(), 2)
	ctx := ctxT(t)
	x, _ := marker()
	a := arm(t, p, deps.Rule{Intent: x, Action: deps.Fail, Times: -1})
	require.NoError(t, c.Set(ctx, "plain:"+x[5:], "v", 0).Err(), "nobody in flight")
	p.Control().SetInFlight(x)
	assert.Error(t, c.Set(ctx, "plain:"+x[5:], "v", 0).Err())
	p.Control().SetInFlight("")
	require.NoError(t, c.Set(ctx, "plain:"+x[5:], "v", 0).Err())
	assert.Equal(t, 1, a.Count())
}

// TestResetAfterCommit: the write is run and answered, and the target's
// connection is reset instead of receiving the reply; another intent's
// write is answered.
func TestResetAfterCommit(t *testing.T) {
	for _, proto := range protocols {
		p := startProxy(t, redis.Config{})
		c, d := client(t, p.Addr(), proto), direct(t)
		ctx := ctxT(t)
		x, kx := marker()
		_, ky := marker()
		a := arm(t, p, deps.Rule{Intent: x, Action: deps.ResetAfterCommit})
		assert.ErrorIs(t, c.Get(ctx, kx).Err(), goredis.Nil, "a read commits nothing")
		require.NoError(t, c.Set(ctx, ky, "y", 0).Err())
		err := c.Set(ctx, kx, "x", 0).Err()
		require.Error(t, err, "the reply never arrives")
		assert.False(t, strings.HasPrefix(err.Error(), "ERR"), "a lost connection, not a Redis error: %v", err)
		assert.Equal(t, "x", d.Get(ctx, kx).Val(), "and yet it was written")
		assert.Equal(t, 1, a.Count())
		ev, err := p.Control().Events().WaitFor(ctx, deps.EventCommitReplied, x)
		require.NoError(t, err)
		assert.True(t, ev.Committed)
		assert.True(t, ev.Withheld)
	}
}

// TestResetAfterExec: EXEC is the commit of a MULTI's writes; an EXEC
// aborted by a WATCHed key commits nothing, and the rule waits.
func TestResetAfterExec(t *testing.T) {
	p := startProxy(t, redis.Config{})
	c, d := client(t, p.Addr(), 2), direct(t)
	ctx := ctxT(t)
	x, kx := marker()
	a := arm(t, p, deps.Rule{Intent: x, Action: deps.ResetAfterCommit})

	err := c.Watch(ctx, func(tx *goredis.Tx) error {
		require.NoError(t, d.Set(ctx, kx, "changed", 0).Err())
		_, err := tx.TxPipelined(ctx, func(pipe goredis.Pipeliner) error {
			pipe.Set(ctx, kx, "x", 0)
			return nil
		})
		return err
	}, kx)
	assert.ErrorIs(t, err, goredis.TxFailedErr, "the watched key changed: EXEC ran nothing")
	assert.Equal(t, 0, a.Count(), "no commit, nothing to reset")

	_, ky := marker()
	_, err = c.TxPipelined(ctx, func(pipe goredis.Pipeliner) error {
		pipe.Set(ctx, ky, "y", 0)
		pipe.Set(ctx, kx, "x", 0)
		return nil
	})
	require.Error(t, err)
	assert.Equal(t, 1, a.Count())
	assert.Equal(t, "x", d.Get(ctx, kx).Val())
	assert.Equal(t, "y", d.Get(ctx, ky).Val())
}

// TestStall: the armed intent's command waits the delay; while it waits
// it has not reached Redis; another intent's is not held.
func TestStall(t *testing.T) {
	p := startProxy(t, redis.Config{})
	c, d := client(t, p.Addr(), 2), direct(t)
	ctx := ctxT(t)
	x, kx := marker()
	_, ky := marker()
	const delay = 50 * time.Millisecond
	a := arm(t, p, deps.Rule{Intent: x, Action: deps.Stall, Delay: delay})
	require.NoError(t, c.Set(ctx, ky, "y", 0).Err())
	assert.Equal(t, 0, a.Count())
	start := time.Now()
	require.NoError(t, c.Set(ctx, kx, "x", 0).Err())
	assert.GreaterOrEqual(t, time.Since(start), delay)

	long := arm(t, p, deps.Rule{Intent: x, Action: deps.Stall, Delay: time.Hour})
	done := make(chan error, 1)
	c2 := client(t, p.Addr(), 2)
	go func() { done <- c2.Del(context.Background(), kx).Err() }()
	select {
	case <-long.Fired():
	case <-ctx.Done():
		t.Fatal("the stall rule never fired")
	}
	assert.Equal(t, "x", d.Get(ctx, kx).Val(), "the stalled DEL has not reached Redis")
	require.NoError(t, p.Close())
	assert.Error(t, <-done)
}

// TestHooks: BeforeCommit runs before the write reaches Redis;
// AfterCommitReply once the target has its reply.
func TestHooks(t *testing.T) {
	p := startProxy(t, redis.Config{})
	c, d := client(t, p.Addr(), 3), direct(t)
	ctx := ctxT(t)
	x, kx := marker()
	replied := make(chan struct{})
	var before, after string
	var sawReply bool
	arm(t, p, deps.Rule{Intent: x, Action: deps.BeforeCommit, Hook: func(ctx context.Context, ev deps.Event) {
		before = d.Get(ctx, kx).Val()
	}})
	arm(t, p, deps.Rule{Intent: x, Action: deps.AfterCommitReply, Hook: func(ctx context.Context, ev deps.Event) {
		select {
		case <-replied:
			sawReply = true
		case <-time.After(10 * time.Second):
		}
		after = d.Get(ctx, kx).Val()
	}})
	require.NoError(t, c.Set(ctx, kx, "x", 0).Err())
	close(replied)
	_, err := p.Control().Events().Wait(ctx, func(ev deps.Event) bool {
		return ev.Kind == deps.EventFault && ev.Action == deps.AfterCommitReply
	})
	require.NoError(t, err)
	require.NoError(t, c.Ping(ctx).Err()) // the hook has returned
	assert.Equal(t, "", before)
	assert.True(t, sawReply)
	assert.Equal(t, "x", after)
}

// TestEvents: a write, its commit and the reply to it, in order, for a
// plain write and for EXEC.
func TestEvents(t *testing.T) {
	p := startProxy(t, redis.Config{})
	c := client(t, p.Addr(), 2)
	ctx := ctxT(t)
	x, kx := marker()
	y, ky := marker()
	require.NoError(t, c.Set(ctx, kx, "x", 0).Err())
	_, err := c.TxPipelined(ctx, func(pipe goredis.Pipeliner) error {
		pipe.Set(ctx, ky, "y", 0)
		return nil
	})
	require.NoError(t, err)
	ev := p.Control().Events()
	for _, intent := range []string{x, y} {
		w, err := ev.WaitFor(ctx, deps.EventWrite, intent)
		require.NoError(t, err)
		cm, err := ev.WaitFor(ctx, deps.EventCommit, intent)
		require.NoError(t, err)
		r, err := ev.WaitFor(ctx, deps.EventCommitReplied, intent)
		require.NoError(t, err)
		assert.Less(t, w.Seq, cm.Seq)
		assert.Less(t, cm.Seq, r.Seq)
		assert.True(t, r.Committed)
	}
	cm, _ := ev.WaitFor(ctx, deps.EventCommit, y)
	assert.Equal(t, "exec", cm.Statement, "the EXEC commits the MULTI's write")
}

// TestRefuseNew: while Redis "loads", commands get -LOADING (HELLO still
// passes); a reset window resets new connections; then all is well.
func TestRefuseNew(t *testing.T) {
	p := startProxy(t, redis.Config{})
	ctx := ctxT(t)
	p.RefuseNew(deps.RefuseStarting, time.Hour)
	c := client(t, p.Addr(), 3)
	err := c.Get(ctx, "k").Err()
	require.Error(t, err)
	assert.Equal(t, "LOADING Redis is loading the dataset in memory", err.Error())
	p.AcceptNew()
	assert.ErrorIs(t, c.Get(ctx, "k").Err(), goredis.Nil)

	p.RefuseNew(deps.RefuseReset, 0)
	c2 := client(t, p.Addr(), 2)
	err = c2.Ping(ctx).Err()
	require.Error(t, err)
	assert.False(t, strings.HasPrefix(err.Error(), "LOADING"))
	p.RefuseNew(deps.RefuseReset, time.Nanosecond)
	require.NoError(t, client(t, p.Addr(), 2).Ping(ctx).Err(), "the window is over")
}

// TestUntrackedSubscription: a subscribed connection is relayed as it is.
func TestUntrackedSubscription(t *testing.T) {
	p := startProxy(t, redis.Config{})
	for _, proto := range protocols {
		c := client(t, p.Addr(), proto)
		ctx := ctxT(t)
		sub := c.Subscribe(ctx, "news")
		_, err := sub.Receive(ctx)
		require.NoError(t, err)
		require.NoError(t, direct(t).Publish(ctx, "news", "hello").Err())
		msg, err := sub.ReceiveMessage(ctx)
		require.NoError(t, err)
		assert.Equal(t, "hello", msg.Payload)
		require.NoError(t, sub.Close())
	}
}

// TestConcurrentIntents: many intents over a pool at once, half armed:
// exactly those fail and write nothing.
func TestConcurrentIntents(t *testing.T) {
	p := startProxy(t, redis.Config{})
	c, d := client(t, p.Addr(), 3), direct(t)
	ctx := ctxT(t)
	const n = 120
	type intent struct {
		m, k string
		a    *deps.Armed
		err  error
	}
	ins := make([]*intent, n)
	for i := range ins {
		m, k := marker()
		ins[i] = &intent{m: m, k: k}
		if i%2 == 1 {
			ins[i].a = arm(t, p, deps.Rule{Intent: m, Action: deps.Fail})
		}
	}
	var wg sync.WaitGroup
	for w := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 6 {
				ins[i].err = c.Set(ctx, ins[i].k, "v", 0).Err()
			}
		}()
	}
	wg.Wait()
	for i, in := range ins {
		if in.a != nil {
			assert.Error(t, in.err, "intent %d", i)
			assert.ErrorIs(t, d.Get(ctx, in.k).Err(), goredis.Nil)
		} else {
			assert.NoError(t, in.err, "intent %d", i)
			assert.Equal(t, "v", d.Get(ctx, in.k).Val())
		}
	}
}

// TestCloseClosesEverything: Close ends the targets' connections and
// Redis's connections for them.
func TestCloseClosesEverything(t *testing.T) {
	p := startProxy(t, redis.Config{})
	d := direct(t)
	ctx := ctxT(t)
	clients := func() int {
		list, err := d.ClientList(ctx).Result()
		require.NoError(t, err)
		return strings.Count(list, "\n")
	}
	base := clients()
	var cs []*goredis.Client
	for range 3 {
		c := client(t, p.Addr(), 2)
		require.NoError(t, c.Ping(ctx).Err())
		cs = append(cs, c)
	}
	require.Equal(t, base+3, clients())
	require.NoError(t, p.Close())
	for _, c := range cs {
		assert.Error(t, c.Ping(ctx).Err())
	}
	deadline := time.Now().Add(20 * time.Second)
	for clients() != base {
		require.True(t, time.Now().Before(deadline), "Redis still has %d connections, not %d", clients(), base)
		time.Sleep(10 * time.Millisecond)
	}
}

// TestArmValidates: a rule Redis cannot honour is refused.
func TestArmValidates(t *testing.T) {
	p := startProxy(t, redis.Config{})
	x, _ := marker()
	for _, r := range []deps.Rule{
		{Intent: x, Action: deps.Fail, Code: "err x"},
		{Intent: x, Action: deps.Fail, Message: "two\r\nlines"},
		{Intent: x, Action: deps.Stall},
	} {
		_, err := p.Control().Arm(r)
		assert.Error(t, err, "%+v", r)
	}
	_, err := p.Control().Arm(deps.Rule{Intent: x, Action: deps.Fail, Code: "BUSY"})
	assert.NoError(t, err)
}

// TestDeepPipeline: a pipeline deeper than the proxy queues at once goes
// through whole, in order (the proxy waits for replies to make room).
func TestDeepPipeline(t *testing.T) {
	p := startProxy(t, redis.Config{})
	c := client(t, p.Addr(), 2)
	ctx := ctxT(t)
	const n = 20000 // more than the proxy queues (1<<14)
	cmds, err := c.Pipelined(ctx, func(pipe goredis.Pipeliner) error {
		for i := range n {
			pipe.Echo(ctx, i)
		}
		return nil
	})
	require.NoError(t, err)
	require.Len(t, cmds, n)
	for i, cmd := range cmds {
		require.Equal(t, fmt.Sprint(i), cmd.(*goredis.StringCmd).Val())
	}
}
