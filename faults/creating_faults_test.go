package faults_test

import (
	"context"
	"net/http"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/faults"
)

// This file is the worked example of CREATING_FAULTS.md: the slow-reply
// fault the guide writes, registered as the guide says (in a registry of
// the test's own: it is not one of idemcheck's faults), held to the
// contract every registered fault is held to, and proven through a real
// proxy both ways.

// NameSlowReply is the registered name of SlowReply.
const NameSlowReply = "slow-reply"

// SlowReply forwards the request at once, lets the target finish, and holds
// the target's reply for Delay before passing it on unchanged. The client
// waits Timeout: if that is shorter, it sees nothing (info) although the
// effect has happened, and must retry with the same key; otherwise it sees
// the real reply, late.
type SlowReply struct {
	// Delay is how long the reply is held.
	Delay faults.Duration `json:"delay"`
	// Timeout is how long the client waits.
	Timeout faults.Duration `json:"timeout"`
}

// Name implements Fault.
func (*SlowReply) Name() string { return NameSlowReply }

// ClientTimeout implements ClientFault.
func (f *SlowReply) ClientTimeout() time.Duration { return time.Duration(f.Timeout) }

// Intercept implements ProxyFault.
func (f *SlowReply) Intercept(ex faults.Exchange) {
	up, err := ex.Forward() // once; the target runs to the end whatever the client does
	if err != nil {
		// As pass-through does: the report already says refused or upstream error.
		h := http.Header{}
		h.Set("Content-Type", "text/plain; charset=utf-8")
		h.Set("Idemcheck-Proxy-Error", "1")
		ex.Respond(http.StatusBadGateway, h, []byte("idemcheck proxy: "+err.Error()))
		return
	}
	hold := time.NewTimer(time.Duration(max(f.Delay, 0))) // a bad setting must not panic or block
	defer hold.Stop()
	select {
	case <-hold.C:
		ex.Respond(up.Status, up.Header, up.Body) // the exact reply: not withheld
	case <-ex.ClientGone():
		ex.Reset() // the target replied, the client never saw it: withheld
	}
}

// guideRegistry registers SlowReply as the guide's "Registering" section
// does in Builtin.
func guideRegistry() *faults.Registry {
	r := faults.NewRegistry()
	r.Register(NameSlowReply, func() faults.Fault {
		return &SlowReply{Delay: faults.Duration(500 * time.Millisecond), Timeout: faults.Duration(250 * time.Millisecond)}
	})
	return r
}

// contractProblems says how the fault registered as name in r breaks the
// contract every registered fault keeps (TestEveryBuiltinFault holds the
// built-in ones to it): made with its defaults, answering to its name, a
// fresh value per New, at least one ability, strict settings.
func contractProblems(r *faults.Registry, name string) []string {
	var out []string
	f, err := r.New(name, nil)
	if err != nil {
		return []string{"cannot be made with its defaults: " + err.Error()}
	}
	if f.Name() != name {
		out = append(out, "answers to "+f.Name()+", not to its registered name "+name)
	}
	if g, err := r.New(name, nil); err == nil && reflect.TypeOf(f).Kind() == reflect.Pointer &&
		reflect.TypeOf(f).Elem().Size() > 0 && reflect.ValueOf(f).Pointer() == reflect.ValueOf(g).Pointer() {
		out = append(out, "New shares one value between two faults")
	}
	_, proxy := f.(faults.ProxyFault)
	_, client := f.(faults.ClientFault)
	_, downward := f.(faults.DownstreamFault)
	_, crash := f.(faults.CrashFault)
	_, disconnect := f.(faults.DisconnectFault)
	_, dependency := f.(faults.DependencyFault)
	if !proxy && !client && !downward && !crash && !disconnect && !dependency {
		out = append(out, "has no ability: every adapter would skip it")
	}
	if _, err := r.New(name, map[string]any{"no_such_setting": 1}); err == nil {
		out = append(out, "accepts an unknown setting")
	}
	return out
}

func TestCreatingFaultsExample(t *testing.T) {
	r := guideRegistry()
	assert.Empty(t, contractProblems(r, NameSlowReply), "the guide's fault keeps the contract")

	f, err := r.New(NameSlowReply, map[string]any{"delay": "2s", "timeout": "1s"})
	require.NoError(t, err)
	assert.Equal(t, &SlowReply{Delay: faults.Duration(2 * time.Second), Timeout: faults.Duration(time.Second)}, f, "settings as the configuration writes them")
	_, err = r.New(NameSlowReply, map[string]any{"dealy": "2s"})
	assert.ErrorContains(t, err, `dealy: unknown setting (slow-reply takes delay, timeout)`, "a typo is never silently the default")

	t.Run("held shorter than the client waits: the real reply, late", func(t *testing.T) {
		tg := newTarget(t, targetOpts{})
		p := mustProxy(t, tg.srv.URL, 0)
		p.Arm("late", &SlowReply{Delay: faults.Duration(20 * time.Millisecond), Timeout: faults.Duration(waitLimit)})
		got := mustSend(t, newClient(t, waitLimit), http.MethodPost, p.URL()+"/orders", "late", `{"amount":1}`, nil)
		assert.Equal(t, http.StatusCreated, got.Status)
		assert.Contains(t, got.Body, "ord_1", "the target's own reply")
		require.Len(t, tg.completed(), 1, "the target acted once")
		rep, ok := p.Report(context.Background(), "late", waitLimit)
		require.True(t, ok)
		assert.Equal(t, faults.Report{Forwarded: true, UpstreamStatus: http.StatusCreated}, rep, "forwarded, not withheld")
	})
	t.Run("held longer than the client waits: the effect happened, the client never knew", func(t *testing.T) {
		tg := newTarget(t, targetOpts{})
		p := mustProxy(t, tg.srv.URL, 0)
		p.Arm("lost", &SlowReply{Delay: faults.Duration(time.Hour), Timeout: faults.Duration(50 * time.Millisecond)})
		_, err := send(t, newClient(t, 50*time.Millisecond), http.MethodPost, p.URL()+"/orders", "lost", `{"amount":1}`, nil)
		require.Error(t, err, "the client gave up")
		require.Len(t, tg.completed(), 1, "the target acted all the same")
		rep, ok := p.Report(context.Background(), "lost", waitLimit)
		require.True(t, ok)
		assert.True(t, rep.Forwarded)
		assert.True(t, rep.Withheld, "the reply never reached the client: an info outcome")
	})
}

// TestTheFaultContractCatchesEachOmission: a fault that leaves out a step
// of the guide is caught by the contract TestEveryBuiltinFault applies to
// every registered fault.
func TestTheFaultContractCatchesEachOmission(t *testing.T) {
	for _, tc := range []struct {
		why  string
		make faults.Factory
		want string
	}{
		{"a Name that is not the registered one", func() faults.Fault { return misnamed{} }, "not to its registered name"},
		{"no ability at all", func() faults.Fault { return &inert{} }, "has no ability"},
	} {
		t.Run(tc.why, func(t *testing.T) {
			r := faults.NewRegistry()
			r.Register("example", tc.make)
			assert.Contains(t, strings.Join(contractProblems(r, "example"), "; "), tc.want)
		})
	}
}

type misnamed struct{ SlowReply }

func (misnamed) Name() string { return "something-else" }

type inert struct {
	Delay faults.Duration `json:"delay"`
}

func (*inert) Name() string { return "example" }

// TestTheGuideShowsTheExample: the code CREATING_FAULTS.md shows is the
// code this file runs, so the guide cannot drift from what works.
func TestTheGuideShowsTheExample(t *testing.T) {
	guide, err := os.ReadFile("CREATING_FAULTS.md")
	require.NoError(t, err)
	src, err := os.ReadFile("creating_faults_test.go")
	require.NoError(t, err)
	norm := func(s string) string {
		s = strings.ReplaceAll(s, "faults.", "")
		return regexp.MustCompile(`\s+`).ReplaceAllString(s, " ")
	}
	for _, decl := range []string{"func (f *SlowReply) Intercept(ex Exchange) {", "type SlowReply struct {"} {
		i := strings.Index(string(guide), decl)
		require.GreaterOrEqual(t, i, 0, "the guide shows %q", decl)
		end := strings.Index(string(guide)[i:], "\n}\n")
		require.Greater(t, end, 0)
		shown := string(guide)[i : i+end+2]
		assert.Contains(t, norm(string(src)), norm(shown), "the guide's %q is the tested code", decl)
	}
}
