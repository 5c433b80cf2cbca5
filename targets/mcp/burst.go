package mcp

import (
	"context"
	"strconv"
	"sync"

	"github.com/idemcheck/idemcheck/harness"
)

// BurstSessions is how many sessions a burst spreads its copies over: the
// target's session and BurstSessions-1 fresh ones (over stdio, fresh
// server processes), so that a guard that only holds within a session or
// a process is caught as well as one that does not hold at all.
const BurstSessions = 4

// Burst implements harness.Burster: n copies of one call, spread over
// BurstSessions sessions opened beforehand, released together.
func (t *Target) Burst(ctx context.Context, c harness.Call, n int) []harness.Reply {
	out := make([]harness.Reply, n)
	fail := func(msg string) []harness.Reply {
		for i := range out {
			out[i] = harness.Reply{Outcome: harness.Fail, Error: msg}
		}
		return out
	}
	p, ok := t.plans[c.Operation]
	if !ok {
		return fail("unknown tool " + c.Operation)
	}
	main, err := t.session(ctx)
	if err != nil {
		return fail("cannot open a session: " + err.Error())
	}
	sessions := []*session{main}
	for i := 1; i < min(BurstSessions, n); i++ {
		s, err := t.connect(ctx)
		if err != nil {
			break // fewer sessions; the burst still runs
		}
		sessions = append(sessions, s)
	}
	defer func() {
		var wg sync.WaitGroup
		for _, s := range sessions[1:] {
			wg.Add(1)
			go func() {
				defer wg.Done()
				t.drop(s)
			}()
		}
		wg.Wait()
	}()
	gate := make(chan struct{})
	var wg sync.WaitGroup
	for i := range out {
		call := c
		call.ID = c.ID + "-" + strconv.Itoa(i+1)
		params, err := p.params(call)
		if err != nil {
			out[i] = harness.Reply{Outcome: harness.Fail, Error: err.Error()}
			continue
		}
		s := sessions[i%len(sessions)]
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			out[i] = t.callOn(ctx, s, p, call.ID, params, nil, t.cfg.Timeout).Reply
			out[i].Session = s.name
		}()
	}
	close(gate)
	wg.Wait()
	if !main.alive() {
		t.drop(main)
	}
	return out
}
