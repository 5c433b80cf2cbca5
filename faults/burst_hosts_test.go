package faults_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/faults"
)

// TestBurstSplitsCopiesAcrossHosts: with Hosts, copy i goes to
// Hosts[i%len(Hosts)], each with its own Host header and the same body,
// and every reply comes back in copy order.
func TestBurstSplitsCopiesAcrossHosts(t *testing.T) {
	type seen struct{ host, body string }
	var mu sync.Mutex
	got := map[int][]seen{}
	serve := func(n int) *httptest.Server {
		return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			mu.Lock()
			got[n] = append(got[n], seen{r.Host, string(b)})
			mu.Unlock()
			_, _ = io.WriteString(w, "instance "+string(rune('0'+n)))
		}))
	}
	a, b := serve(0), serve(1)
	defer a.Close()
	defer b.Close()
	hostA, hostB := strings.TrimPrefix(a.URL, "http://"), strings.TrimPrefix(b.URL, "http://")
	req, err := http.NewRequest(http.MethodPost, a.URL+"/orders", strings.NewReader(`{"n":1}`))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), burstWait)
	defer cancel()
	replies, err := faults.Burst{N: 5, Timeout: burstWait, Hosts: []string{hostA, hostB}}.Fire(ctx, req)
	require.NoError(t, err)
	require.Len(t, replies, 5)
	for i, r := range replies {
		require.NoError(t, r.Err, "copy %d", i)
		assert.Equal(t, "instance "+string(rune('0'+i%2)), string(r.Body), "copy %d goes to instance %d", i, i%2)
		assert.False(t, r.Cut)
	}
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, got[0], 3)
	require.Len(t, got[1], 2)
	for n, host := range []string{hostA, hostB} {
		for _, s := range got[n] {
			assert.Equal(t, host, s.host, "each copy names the instance it goes to")
			assert.Equal(t, `{"n":1}`, s.body)
		}
	}
}

// TestBurstMarksAnOverlongReplyCut: a reply longer than MaxBurstReplyBody
// keeps its start and says it was cut; one of exactly the limit is whole.
func TestBurstMarksAnOverlongReplyCut(t *testing.T) {
	for _, tc := range []struct {
		size int
		cut  bool
	}{{faults.MaxBurstReplyBody, false}, {faults.MaxBurstReplyBody + 1, true}, {4 * faults.MaxBurstReplyBody, true}} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte(strings.Repeat("x", tc.size)))
		}))
		req, err := http.NewRequest(http.MethodGet, srv.URL+"/big", nil)
		require.NoError(t, err)
		ctx, cancel := context.WithTimeout(context.Background(), burstWait)
		replies, err := faults.Burst{N: 2, Timeout: burstWait}.Fire(ctx, req)
		cancel()
		srv.Close()
		require.NoError(t, err)
		for _, r := range replies {
			require.NoError(t, r.Err)
			assert.Equal(t, tc.cut, r.Cut, "a body of %d bytes", tc.size)
			assert.Len(t, r.Body, min(tc.size, faults.MaxBurstReplyBody))
		}
	}
}
