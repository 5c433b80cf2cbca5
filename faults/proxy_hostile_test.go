package faults_test

import (
	"context"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/faults"
)

// zeros is a reader of n zero bytes that holds none of them.
type zeros struct{ n int64 }

func (z *zeros) Read(p []byte) (int, error) {
	if z.n <= 0 {
		return 0, io.EOF
	}
	k := int(min(int64(len(p)), z.n))
	clear(p[:k])
	z.n -= int64(k)
	return k, nil
}

// TestProxyCutsAnOverlongReplyAndSaysSo: a target that answers 200 with a
// 48 MiB body costs the proxy about MaxReplyBody, and the attempt is
// recorded as cut, with how much arrived, never as a clean 200.
func TestProxyCutsAnOverlongReplyAndSaysSo(t *testing.T) {
	const size = 48 << 20
	tg := newTarget(t, targetOpts{reply: func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusOK)
		_, _ = io.Copy(w, &zeros{n: size})
	}})
	p := mustProxy(t, tg.srv.URL, 0)
	// 48 MiB cross loopback twice: on a busy machine under -race that
	// takes seconds, which is no hang.
	c := newClient(t, 6*waitLimit)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	p.Arm("big", nil)
	got := mustSend(t, c, http.MethodGet, p.URL()+"/huge", "big", "", nil)
	runtime.ReadMemStats(&after)

	rep, ok := p.Report(context.Background(), "big", waitLimit)
	require.True(t, ok)
	assert.True(t, rep.Cut, "an overlong body is recorded as cut")
	assert.Equal(t, int64(size), rep.ReplyBytes, "how much arrived")
	assert.Equal(t, http.StatusOK, got.Status)
	assert.Len(t, got.Body, faults.MaxReplyBody, "only the start is passed on")
	assert.Equal(t, strconv.Itoa(size), got.Header.Get(faults.CutHeader))
	assert.Less(t, int64(after.TotalAlloc-before.TotalAlloc), int64(32<<20), "bytes allocated to pass on one overlong reply")
}

// TestProxyCutsAReplyThatNeverEnds: a target whose body goes past
// MaxReplyBody and then stalls without ending is recorded as cut, with
// what arrived, once the count's share of the forward timeout is up: the
// client gets the cut reply, not a timeout, however slowly the machine
// counts.
func TestProxyCutsAReplyThatNeverEnds(t *testing.T) {
	const sent = faults.MaxReplyBody + 10
	tg := newTarget(t, targetOpts{reply: func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		_, _ = io.Copy(w, &zeros{n: sent})
		w.(http.Flusher).Flush()
		<-r.Context().Done() // never ends the body
	}})
	p := mustProxy(t, tg.srv.URL, waitLimit)
	c := newClient(t, 2*waitLimit)
	p.Arm("stall", nil)
	got := mustSend(t, c, http.MethodGet, p.URL()+"/stall", "stall", "", nil)
	rep, ok := p.Report(context.Background(), "stall", waitLimit)
	require.True(t, ok)
	assert.True(t, rep.Cut, "%+v", rep)
	assert.Empty(t, rep.UpstreamError, "the count's end is not the target's failure")
	assert.False(t, rep.TimedOut)
	assert.Equal(t, int64(sent), rep.ReplyBytes, "how much arrived")
	assert.Equal(t, http.StatusOK, got.Status)
	assert.Len(t, got.Body, faults.MaxReplyBody, "only the start is passed on")
	assert.Equal(t, strconv.Itoa(sent), got.Header.Get(faults.CutHeader))
}

// TestProxyPassesAReplyAtTheCapWhole: a body of exactly MaxReplyBody is
// not cut.
func TestProxyPassesAReplyAtTheCapWhole(t *testing.T) {
	tg := newTarget(t, targetOpts{reply: func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.Copy(w, &zeros{n: faults.MaxReplyBody})
	}})
	p := mustProxy(t, tg.srv.URL, 0)
	c := newClient(t, waitLimit)
	p.Arm("cap", nil)
	got := mustSend(t, c, http.MethodGet, p.URL()+"/cap", "cap", "", nil)
	rep, ok := p.Report(context.Background(), "cap", waitLimit)
	require.True(t, ok)
	assert.False(t, rep.Cut)
	assert.Zero(t, rep.ReplyBytes)
	assert.Len(t, got.Body, faults.MaxReplyBody)
	assert.Empty(t, got.Header.Get(faults.CutHeader))
}
