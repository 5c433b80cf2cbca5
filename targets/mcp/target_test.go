package mcp_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/harness"
)

var transports = []struct {
	name string
	http bool
}{{"stdio", false}, {"http", true}}

func TestDiscoveryReadsAnnotationsAndSchemas(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "correct", false)
	info := w.target.Info()
	require.Len(t, info.Operations, 2)
	create, ok := info.Operation("create_payment")
	require.True(t, ok)
	assert.True(t, create.Mutating, "no readOnlyHint: mutating")
	assert.True(t, create.DryRun, "the schema has dry_run")
	assert.Equal(t, harness.Input{Kind: "int", Min: 100, Max: 99999}, create.Inputs["amount"], "bounds from the schema")
	assert.NotContains(t, create.Inputs, "description", "the marker goes there")
	assert.NotContains(t, create.Inputs, "idempotency_key")
	lookup, _ := info.Operation("lookup_payment")
	assert.False(t, lookup.Mutating, "readOnlyHint: true")
}

func TestCallReplayAndRefusal(t *testing.T) {
	t.Parallel()
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			w := newWorld(t, "correct", tr.http)
			in := w.intent("k-1")
			first := w.call(in, nil)
			require.Equal(t, harness.OK, first.Outcome, first.Error)
			assert.Equal(t, "created", first.Effect)
			assert.NotEmpty(t, first.Identity)
			again := w.call(in, nil)
			require.Equal(t, harness.OK, again.Outcome, again.Error)
			assert.Equal(t, "noop", again.Effect)
			assert.Equal(t, first.Identity, again.Identity)
			assert.Equal(t, 1, w.effects(in))

			nokey := w.call(w.intent(""), nil)
			assert.Equal(t, harness.Fail, nokey.Outcome, "isError: true is a failure")
			assert.Equal(t, 400, nokey.Status)
		})
	}
}

// A lost reply: the server ran the call (the charge is in the ledger),
// the client never saw the reply, and the retry on the same key is a
// replay. The same fault on a server without a key duplicates.
func TestLostResponse(t *testing.T) {
	t.Parallel()
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			w := newWorld(t, "correct", tr.http)
			in := w.intent("k-lost")
			lost := w.call(in, &faults.LostResponse{Status: 503})
			assert.Equal(t, harness.Info, lost.Outcome, lost.Error)
			assert.True(t, lost.Withheld, "the server replied; the reply was withheld")
			assert.Equal(t, 1, w.effects(in), "the server ran the call")
			retry := w.call(in, nil)
			require.Equal(t, harness.OK, retry.Outcome, retry.Error)
			assert.Equal(t, "noop", retry.Effect)
			assert.Equal(t, 1, w.effects(in))

			bad := newWorld(t, "nokey", tr.http)
			in = bad.intent("k-lost")
			bad.call(in, &faults.LostResponse{Status: 503})
			bad.call(in, nil)
			assert.Equal(t, 2, bad.effects(in), "without a key the retry charges again")
		})
	}
}

// A client timeout: the client gives up and sends notifications/cancelled;
// the server's reply is withheld and the session goes on.
func TestClientTimeout(t *testing.T) {
	t.Parallel()
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			w := newWorld(t, "correct", tr.http)
			in := w.intent("k-timeout")
			rep := w.call(in, &faults.ClientTimeout{Timeout: faults.Duration(100 * time.Millisecond)})
			assert.Equal(t, harness.Info, rep.Outcome)
			assert.Contains(t, rep.Error, "notifications/cancelled")
			retry := w.call(in, nil)
			require.Equal(t, harness.OK, retry.Outcome, retry.Error)
			assert.Equal(t, 1, w.effects(in))
		})
	}
}

// A reset: the transport dies with the reply, and the retry comes on a new
// session (over stdio a new server process). A cache kept in the session
// charges again; the durable claim does not.
func TestReconnectAfterReset(t *testing.T) {
	t.Parallel()
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			for _, c := range []struct {
				profile string
				want    int
			}{{"correct", 1}, {"session-cache", 2}} {
				w := newWorld(t, c.profile, tr.http)
				in := w.intent("k-reset")
				rep := w.call(in, &faults.Reset{})
				assert.Equal(t, harness.Info, rep.Outcome, rep.Error)
				retry := w.call(in, nil)
				require.Equal(t, harness.OK, retry.Outcome, retry.Error)
				assert.Equal(t, c.want, w.effects(in), c.profile)
				// On one session the session cache is correct.
				in = w.intent("k-same")
				w.call(in, nil)
				w.call(in, nil)
				assert.Equal(t, 1, w.effects(in), "%s on one session", c.profile)
			}
		})
	}
}

// TestFaultsThatEndTheSharedSession: the calls share one session, which a
// reset ends for every call in flight on either transport: the target
// says a reset disrupts it, so generated trials run it alone. The other
// faults act on their own call (those that wait reset their exchange only
// once the client has gone, which leaves the transport be), and a
// downstream fault on the server's own call: after a reset the next call
// goes on a new session, after the others on the same one.
func TestFaultsThatEndTheSharedSession(t *testing.T) {
	t.Parallel()
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			w := newWorld(t, "correct", tr.http)
			for _, name := range []string{faults.NameReset, faults.NameHang, faults.NameClientTimeout, faults.NameLostResponse,
				faults.NameLatency, faults.NameUnavailableBefore, faults.NameDownstreamFailBefore, faults.NameDownstreamFailAfter} {
				f, err := faults.Builtin().New(name, nil)
				require.NoError(t, err, name)
				assert.Equal(t, name == faults.NameReset, w.target.DisruptedBy(f), name)
			}
			// A client that leaves while the server works leaves it alone;
			// one that leaves while it waits for a reply (the server
			// answered before anything made it go, as for a replayed call
			// that calls nothing downstream) ends the transport.
			cd, err := faults.Builtin().New(faults.NameClientDisconnect, nil)
			require.NoError(t, err)
			// Over HTTP the reset is of the call's own connection.
			assert.Equal(t, !tr.http, w.target.DisruptedBy(cd), "client-disconnect")
			for i := range 3 {
				in := w.intent(fmt.Sprintf("k-replayed-%d", i))
				require.Equal(t, harness.OK, w.call(in, nil).Outcome)
				rep := w.call(in, cd)
				next := w.call(w.intent(fmt.Sprintf("k-after-replayed-%d", i)), nil)
				require.Equal(t, harness.OK, next.Outcome, "the call after a client-disconnect: %s", next.Error)
				assert.Equal(t, !tr.http, rep.Session != next.Session, "a new session after a client-disconnect: %s then %s", rep.Session, next.Session)
			}
			// What the declaration rests on: after a reset the next call
			// goes on a new session; after the others, on the same one.
			for _, name := range []string{faults.NameReset, faults.NameHang, faults.NameClientTimeout, faults.NameLostResponse, faults.NameLatency} {
				f, err := faults.Builtin().New(name, nil)
				require.NoError(t, err, name)
				if wf, ok := f.(faults.Waiting); ok {
					f = wf.Within(300 * time.Millisecond)
				}
				rep := w.call(w.intent("k-"+name), f)
				next := w.call(w.intent("k-after-"+name), nil)
				require.Equal(t, harness.OK, next.Outcome, next.Error)
				assert.Equal(t, name == faults.NameReset, rep.Session != next.Session, "%s: sessions %s then %s", name, rep.Session, next.Session)
			}
		})
	}
}

// A crash after the reply: the server is SIGKILLed before the client gets
// the reply, restarted, and the retry replays from the durable claim.
func TestCrashAfterReplyAndRestart(t *testing.T) {
	t.Parallel()
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			w := newWorld(t, "correct", tr.http)
			in := w.intent("k-crash")
			killed := false
			rep := w.call(in, faults.KillAfterReply(faults.NameCrashAfterReply, func() {
				killed = true
				require.NoError(t, w.target.Kill())
			}))
			assert.True(t, killed)
			assert.Equal(t, harness.Info, rep.Outcome, rep.Error)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			require.NoError(t, w.target.Restart(ctx))
			retry := w.call(in, nil)
			require.Equal(t, harness.OK, retry.Outcome, retry.Error)
			assert.Equal(t, "noop", retry.Effect)
			assert.Equal(t, 1, w.effects(in))
		})
	}
}

// A burst spread over several sessions (over stdio, several processes):
// the durable claim holds across them; a session cache does not.
func TestBurstAcrossSessions(t *testing.T) {
	t.Parallel()
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			w := newWorld(t, "correct", tr.http)
			in := w.intent("k-burst")
			in.ID = "burst"
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			replies := w.target.Burst(ctx, in, 8)
			require.Len(t, replies, 8)
			ok := 0
			for _, r := range replies {
				if r.Outcome == harness.OK {
					ok++
				}
			}
			assert.Positive(t, ok)
			assert.Equal(t, 1, w.effects(in), "one charge for the whole burst")

			bad := newWorld(t, "session-cache", tr.http)
			in = bad.intent("k-burst")
			in.ID = "burst"
			bad.target.Burst(ctx, in, 8)
			assert.Greater(t, bad.effects(in), 1, "a cache per session lets every session charge")
		})
	}
}

// The session cache holds on one session, even for calls in flight
// together: copies on the same session are told to retry (409) and then
// replayed. Only a burst across sessions (above) duplicates, which is the
// flaw it is built with.
func TestSessionCacheHoldsOnOneSession(t *testing.T) {
	t.Parallel()
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			w := newWorld(t, "session-cache", tr.http)
			in := w.intent("k-one-session")
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			const copies = 8
			replies := make([]harness.Reply, copies)
			var wg sync.WaitGroup
			gate := make(chan struct{})
			for i := range copies {
				c := in
				c.ID = fmt.Sprintf("same-%d", i)
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-gate
					replies[i] = w.target.Call(ctx, c)
				}()
			}
			close(gate)
			wg.Wait()
			for _, r := range replies {
				assert.Contains(t, []harness.Outcome{harness.OK, harness.Fail}, r.Outcome, r.Error)
				if r.Outcome == harness.Fail {
					assert.Equal(t, 409, r.Status, "a copy in flight on the same session is told to retry: %s", r.Error)
				}
			}
			assert.Equal(t, 1, w.effects(in), "one charge for copies on one session")
		})
	}
}
