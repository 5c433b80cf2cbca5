package webhooks_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/fakes/webhooks"
)

const (
	waitLimit = 10 * time.Second
	markerA   = "idem-00000000000000aa"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type result struct {
	status int
	header http.Header
	body   string
	err    error
}

func post(t testing.TB, u, body string, hdr ...string) result {
	t.Helper()
	tr := &http.Transport{DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, u, strings.NewReader(body))
	require.NoError(t, err)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := (&http.Client{Transport: tr, Timeout: waitLimit}).Do(req)
	if err != nil {
		return result{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return result{status: resp.StatusCode, header: resp.Header, body: string(b), err: err}
}

func get(t testing.TB, u string) string {
	t.Helper()
	resp, err := (&http.Client{Timeout: waitLimit}).Get(u)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(b))
	return string(b)
}

func TestDeliveryIsRecorded(t *testing.T) {
	s := webhooks.Start(t)
	r := post(t, s.URL()+"/hooks/orders?trace=1", `{"event":"order.created","memo":"`+markerA+`"}`, "Webhook-Signature", "v1,abc")
	require.NoError(t, r.err)
	require.Equal(t, http.StatusOK, r.status, r.body)
	assert.JSONEq(t, `{"received":true,"id":"dlv_000001"}`, r.body)

	ds := s.Deliveries()
	require.Len(t, ds, 1)
	assert.Equal(t, "dlv_000001", ds[0].ID)
	assert.Equal(t, "/hooks/orders", ds[0].Path)
	assert.Equal(t, "v1,abc", ds[0].Header.Get("Webhook-Signature"))
	assert.Contains(t, ds[0].Body, markerA)
	assert.Equal(t, []string{markerA}, ds[0].Markers)

	effects := s.Ledger().Effects()
	require.Len(t, effects, 1)
	assert.Equal(t, "webhooks", effects[0].Fake)
	assert.Equal(t, "delivery", effects[0].Kind)
	assert.Equal(t, "dlv_000001", effects[0].ID)
	assert.Equal(t, map[string]string{"path": "/hooks/orders", "bytes": "56"}, effects[0].Detail)
}

func TestDeduplicationByKey(t *testing.T) {
	s := webhooks.Start(t)
	body := `{"memo":"` + markerA + `"}`
	first := post(t, s.URL()+"/hooks/a", body, "Idempotency-Key", "evt_1", "Webhook-Timestamp", "1")
	require.Equal(t, http.StatusOK, first.status)
	again := post(t, s.URL()+"/hooks/a", body, "Idempotency-Key", "evt_1", "Webhook-Timestamp", "2")
	assert.Equal(t, first.body, again.body, "the first reply again; other headers may differ")
	assert.Equal(t, "true", again.header.Get("Idempotent-Replayed"))
	other := post(t, s.URL()+"/hooks/a", `{"memo":"other"}`, "Idempotency-Key", "evt_1")
	assert.Equal(t, http.StatusUnprocessableEntity, other.status)
	elsewhere := post(t, s.URL()+"/hooks/b", body, "Idempotency-Key", "evt_1")
	assert.Equal(t, http.StatusUnprocessableEntity, elsewhere.status, "the path is part of the request")
	assert.Len(t, s.Ledger().Effects(), 1)

	post(t, s.URL()+"/hooks/a", body)
	post(t, s.URL()+"/hooks/a", body)
	assert.Len(t, s.Ledger().Effects(), 3, "without a key every delivery is recorded")
}

func TestKeyHeaderAndIgnoreKeys(t *testing.T) {
	s := webhooks.Start(t, webhooks.Options{KeyHeader: "Webhook-Id"})
	post(t, s.URL()+"/hooks/a", "x", "Webhook-Id", "msg_1")
	post(t, s.URL()+"/hooks/a", "x", "Webhook-Id", "msg_1")
	assert.Len(t, s.Ledger().Effects(), 1)
	assert.Equal(t, "msg_1", s.Deliveries()[0].Key)

	loose := webhooks.Start(t, webhooks.Options{IgnoreIdempotencyKeys: true})
	post(t, loose.URL()+"/hooks/a", "x", "Idempotency-Key", "k")
	post(t, loose.URL()+"/hooks/a", "x", "Idempotency-Key", "k")
	assert.Len(t, loose.Ledger().Effects(), 2, "a receiver that does not de-duplicate")
}

func TestInFlightKeyGets409(t *testing.T) {
	s := webhooks.Start(t)
	entered := make(chan struct{})
	release := make(chan struct{})
	var once, rel sync.Once
	cancel := s.Ledger().Observe(func(fakes.Effect) {
		once.Do(func() { close(entered); <-release })
	})
	defer cancel()
	t.Cleanup(func() { rel.Do(func() { close(release) }) })

	first := make(chan result, 1)
	go func() { first <- post(t, s.URL()+"/hooks/a", "x", "Idempotency-Key", "k") }()
	select {
	case <-entered:
	case <-time.After(waitLimit):
		t.Fatal("the first delivery never reached the ledger")
	}
	assert.Equal(t, http.StatusConflict, post(t, s.URL()+"/hooks/a", "x", "Idempotency-Key", "k").status)
	rel.Do(func() { close(release) })
	assert.Equal(t, http.StatusOK, (<-first).status)
	assert.Len(t, s.Ledger().Effects(), 1)
}

func TestFaults(t *testing.T) {
	tests := []struct {
		action   fakes.Action
		status   int // 0: reset
		recorded int
	}{
		{fakes.FailBefore, http.StatusServiceUnavailable, 0},
		{fakes.FailAfter, http.StatusServiceUnavailable, 1},
		{fakes.ResetAfter, 0, 1},
		{fakes.Pass, http.StatusOK, 1},
	}
	for _, tt := range tests {
		t.Run(string(tt.action), func(t *testing.T) {
			s := webhooks.Start(t)
			s.Arm(fakes.Rule{Marker: markerA, Action: tt.action})
			r := post(t, s.URL()+"/hooks/x", markerA, "Idempotency-Key", "k")
			if tt.status == 0 {
				require.Error(t, r.err)
			} else {
				assert.Equal(t, tt.status, r.status)
			}
			assert.Len(t, s.Ledger().Effects(), tt.recorded)
			retry := post(t, s.URL()+"/hooks/x", markerA, "Idempotency-Key", "k")
			assert.Equal(t, http.StatusOK, retry.status)
			assert.Len(t, s.Ledger().Effects(), 1, "a keyed retry is recorded at most once")
		})
	}
}

func TestHangEndsWhenTheSenderGivesUp(t *testing.T) {
	s := webhooks.Start(t)
	matched := make(chan struct{})
	s.Arm(fakes.Rule{Action: fakes.HangAfter, OnMatch: func() { close(matched) }})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL()+"/hooks/x", strings.NewReader(markerA))
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	<-matched
	cancel()
	assert.Error(t, <-done)
	require.NoError(t, s.Close(), "the hang ended")
	assert.Len(t, s.Ledger().Effects(), 1, "HangAfter recorded before holding")
	http.DefaultClient.CloseIdleConnections()
}

func TestControl(t *testing.T) {
	s := webhooks.Start(t, webhooks.Options{ControlAddr: "127.0.0.1:0"})
	ctl := s.ControlURL()
	assert.JSONEq(t, `[]`, get(t, ctl+"/_idemcheck/ledger"))
	assert.JSONEq(t, `{"deliveries":[]}`, get(t, ctl+"/_idemcheck/deliveries"))

	r := post(t, ctl+"/_idemcheck/rules", `{"action":"fail-before","delay":"1ms"}`)
	require.Equal(t, http.StatusNoContent, r.status, r.body)
	assert.Equal(t, http.StatusServiceUnavailable, post(t, s.URL()+"/hooks/x", "x").status)
	assert.Equal(t, http.StatusBadRequest, post(t, ctl+"/_idemcheck/rules", `{"action":"explode"}`).status)

	post(t, ctl+"/_idemcheck/rules", `{"action":"fail-before"}`)
	req, _ := http.NewRequest(http.MethodDelete, ctl+"/_idemcheck/rules", nil)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNoContent, resp.StatusCode)
	assert.Equal(t, http.StatusOK, post(t, s.URL()+"/hooks/x", "x").status)

	var effects []fakes.Effect
	require.NoError(t, json.Unmarshal([]byte(get(t, ctl+"/_idemcheck/ledger")), &effects))
	assert.Len(t, effects, 1)
	assert.Equal(t, http.StatusNotFound, post(t, s.URL()+"/elsewhere", "x").status)
	http.DefaultClient.CloseIdleConnections()
}

// TestSenderCannotDisarmFaults: the sink's address answers 404 to every
// control request, so the fault armed for a delivery still fires.
func TestSenderCannotDisarmFaults(t *testing.T) {
	s := webhooks.Start(t, webhooks.Options{ControlAddr: "127.0.0.1:0"})
	const m = "idem-00000000000000a1"
	s.Arm(fakes.Rule{Marker: m, Action: fakes.FailBefore})
	req, _ := http.NewRequest(http.MethodDelete, s.URL()+"/_idemcheck/rules", nil)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	assert.Equal(t, http.StatusNotFound, post(t, s.URL()+"/_idemcheck/rules", `{"action":"pass"}`).status)
	assert.Equal(t, http.StatusServiceUnavailable, post(t, s.URL()+"/hooks/x", m).status, "the fault fired")
	assert.Equal(t, 1, s.Fired(m))
	http.DefaultClient.CloseIdleConnections()
}

func TestNewRefusesNonLoopback(t *testing.T) {
	_, err := webhooks.New(webhooks.Options{Addr: "0.0.0.0:0"})
	assert.ErrorContains(t, err, "not loopback")
}
