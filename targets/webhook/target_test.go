package webhook_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/targets/webhook"
)

const marker = "idem-00000000000000aa"

func TestDeliveryIsRenderedAndSigned(t *testing.T) {
	rc := newReceiver(t)
	cfg := config(rc.srv.URL)
	cfg.Events[0].Headers = map[string]string{"User-Agent": "Provider/1.0 ({{marker}})"}
	tg := mustNew(t, cfg)

	rep := tg.Call(t.Context(), call("a-1", "invoice.due", "evt_1", marker))
	require.Equal(t, harness.OK, rep.Outcome, "%+v", rep)
	assert.Equal(t, http.StatusOK, rep.Status)
	assert.True(t, rep.Forwarded)

	ds := rc.deliveries()
	require.Len(t, ds, 1)
	d := ds[0]
	assert.Equal(t, "/webhooks", d.Path)
	want := `{"id":"evt_1","type":"invoice.due","created":1700000000,"data":{"amount":250,"description":"invoice ` + marker + `"}}`
	assert.Equal(t, want, d.Body)
	assert.Equal(t, stripeSig(secret, clock.Unix(), want), d.Header.Get("Idemcheck-Signature"))
	assert.Equal(t, "application/json", d.Header.Get("Content-Type"))
	assert.Equal(t, "Provider/1.0 ("+marker+")", d.Header.Get("User-Agent"))
	assert.Empty(t, d.Header.Get("Idempotency-Key"), "the event id is in the payload only")
	assert.Empty(t, d.Header.Get("Idemcheck-Attempt"), "the proxy strips the attempt id")
}

func TestSignatureSchemes(t *testing.T) {
	body := `{"id":"evt_1","type":"ping","trace":"` + marker + `"}`
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(body))
	sum := mac.Sum(nil)
	tests := []struct {
		name   string
		sig    webhook.Signature
		header string
		want   string
	}{
		{"stripe by default", webhook.Signature{Secret: secret}, "Idemcheck-Signature", stripeSig(secret, clock.Unix(), body)},
		{"github", webhook.Signature{Secret: secret, Scheme: "hex", Header: "X-Hub-Signature-256", Prefix: "sha256="}, "X-Hub-Signature-256", "sha256=" + hex.EncodeToString(sum)},
		{"shopify", webhook.Signature{Secret: secret, Scheme: "base64", Header: "X-Shopify-Hmac-Sha256"}, "X-Shopify-Hmac-Sha256", base64.StdEncoding.EncodeToString(sum)},
		{"none", webhook.Signature{Scheme: "none"}, "Idemcheck-Signature", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rc := newReceiver(t)
			cfg := config(rc.srv.URL)
			cfg.Signature = tt.sig
			tg := mustNew(t, cfg)
			require.Equal(t, harness.OK, tg.Call(t.Context(), call("a-1", "ping", "evt_1", marker)).Outcome)
			d := rc.deliveries()[0]
			assert.Equal(t, body, d.Body)
			assert.Equal(t, tt.want, d.Header.Get(tt.header))
		})
	}
}

func TestBadSignatureIsWellFormedButWrong(t *testing.T) {
	rc := newReceiver(t)
	rc.reply = func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusUnauthorized) }
	tg := mustNew(t, config(rc.srv.URL))

	rep := tg.BadSignature(t.Context(), call("a-1", "invoice.due", "evt_1", marker))
	assert.Equal(t, harness.Fail, rep.Outcome)
	assert.Equal(t, http.StatusUnauthorized, rep.Status)
	d := rc.deliveries()[0]
	sig := d.Header.Get("Idemcheck-Signature")
	assert.Regexp(t, `^t=1700000000,v1=[0-9a-f]{64}$`, sig, "the right format")
	assert.NotEqual(t, stripeSig(secret, clock.Unix(), d.Body), sig, "the wrong MAC")

	unsigned := config(rc.srv.URL)
	unsigned.Signature = webhook.Signature{Scheme: "none"}
	rep = mustNew(t, unsigned).BadSignature(t.Context(), call("a-2", "invoice.due", "evt_1", marker))
	assert.Equal(t, harness.Fail, rep.Outcome)
	assert.Contains(t, rep.Error, "not signed")
}

func TestCreatedIsFixedPerEventID(t *testing.T) {
	rc := newReceiver(t)
	tg := mustNew(t, config(rc.srv.URL))
	tg.Call(t.Context(), call("a-1", "invoice.due", "evt_1", marker))
	tg.Call(t.Context(), call("a-2", "invoice.due", "evt_2", marker))
	tg.Call(t.Context(), call("a-3", "invoice.due", "evt_1", marker))
	created := func(d delivery) int64 {
		var ev struct{ Created int64 }
		require.NoError(t, json.Unmarshal([]byte(d.Body), &ev))
		return ev.Created
	}
	ds := rc.deliveries()
	require.Len(t, ds, 3)
	assert.Equal(t, created(ds[0]), created(ds[2]), "a redelivery keeps its event's time")
	assert.Greater(t, created(ds[1]), created(ds[0]), "a later event is newer, even within one second")
}

func TestOutOfOrder(t *testing.T) {
	rc := newReceiver(t)
	tg := mustNew(t, config(rc.srv.URL))
	calls := []harness.Call{call("a-1", "invoice.due", "evt_a", marker), call("a-2", "invoice.due", "evt_b", marker), call("a-3", "invoice.due", "evt_c", marker)}
	reps := tg.OutOfOrder(t.Context(), calls)
	require.Len(t, reps, 3)
	var order []string
	var times []int64
	for _, d := range rc.deliveries() {
		var ev struct {
			ID      string
			Created int64
		}
		require.NoError(t, json.Unmarshal([]byte(d.Body), &ev))
		order = append(order, ev.ID)
		times = append(times, ev.Created)
	}
	assert.Equal(t, []string{"evt_c", "evt_b", "evt_a"}, order, "delivered newest first")
	assert.Greater(t, times[0], times[1])
	assert.Greater(t, times[1], times[2], "created in the order the calls were given")
}

func TestIDHeaderAndKeyInPath(t *testing.T) {
	rc := newReceiver(t)
	cfg := config(rc.srv.URL)
	cfg.IDHeader = "Webhook-Id"
	cfg.Events[1].Path = "/webhooks/{{key}}"
	tg := mustNew(t, cfg)
	tg.Call(t.Context(), call("a-1", "ping", "evt/1", marker))
	d := rc.deliveries()[0]
	assert.Equal(t, "evt/1", d.Header.Get("Webhook-Id"))
	assert.Equal(t, "/webhooks/evt%2F1", d.Path, "the key is escaped as a path segment")
}

func TestBurstSendsIdenticalSignedCopies(t *testing.T) {
	rc := newReceiver(t)
	tg := mustNew(t, config(rc.srv.URL))
	reps := tg.Burst(t.Context(), call("a-1", "invoice.due", "evt_1", marker), 5)
	require.Len(t, reps, 5)
	for _, r := range reps {
		assert.Equal(t, harness.OK, r.Outcome, "%+v", r)
	}
	ds := rc.deliveries()
	require.Len(t, ds, 5)
	for _, d := range ds {
		assert.Equal(t, ds[0].Body, d.Body)
		assert.Equal(t, stripeSig(secret, clock.Unix(), d.Body), d.Header.Get("Idemcheck-Signature"))
	}
}

func TestInfo(t *testing.T) {
	rc := newReceiver(t)
	info := mustNew(t, config(rc.srv.URL)).Info()
	assert.Equal(t, "webhook", info.Kind)
	assert.Equal(t, &harness.Capabilities{EventKeys: true}, info.Capabilities, "the event id is the key; no key header, effect field or dry run")
	require.Len(t, info.Operations, 2)
	assert.True(t, info.Operations[0].Mutating)
	assert.False(t, info.Operations[0].DryRun)
	assert.False(t, info.Operations[1].Mutating, "a ping is safe")
}

func TestUnknownEventAndBadTemplate(t *testing.T) {
	rc := newReceiver(t)
	cfg := config(rc.srv.URL)
	cfg.Events[1].Body = `{"id":"{{key}}","x":"{{input.nope}}"}`
	tg := mustNew(t, cfg)
	rep := tg.Call(t.Context(), call("a-1", "refund", "evt_1", marker))
	assert.Equal(t, harness.Fail, rep.Outcome)
	assert.Contains(t, rep.Error, "unknown event")
	rep = tg.Call(t.Context(), call("a-2", "ping", "evt_1", marker))
	assert.Contains(t, rep.Error, "input.nope")
	assert.Empty(t, rc.deliveries(), "nothing was sent")
}

func TestConfigErrors(t *testing.T) {
	base := func() webhook.Config { return config("http://127.0.0.1:1") }
	tests := []struct {
		name    string
		change  func(*webhook.Config)
		mention string
	}{
		{"no events", func(c *webhook.Config) { c.Events = nil }, "no events"},
		{"no secret", func(c *webhook.Config) { c.Signature.Secret = "" }, "secret is required"},
		{"unknown scheme", func(c *webhook.Config) { c.Signature.Scheme = "rot13" }, "unknown scheme"},
		{"twice", func(c *webhook.Config) { c.Events[1].Name = c.Events[0].Name }, "twice"},
		{"no path", func(c *webhook.Config) { c.Events[0].Path = "" }, "no path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := base()
			tt.change(&cfg)
			_, err := webhook.New(cfg)
			assert.ErrorContains(t, err, tt.mention)
			_, err = webhook.Spec(cfg, nil).Start(t.Context(), &harness.Env{})
			assert.ErrorContains(t, err, tt.mention, "Spec reports it when started")
		})
	}
}

// Events made one after the other get increasing {{created}} times, even
// within one second; distinct events delivered at once share one, as a
// provider stamps events made together: a handler that skips events not
// newer than the newest it processed loses one of them, whichever comes
// first.
func TestCreatedOfEventsDeliveredAtOnce(t *testing.T) {
	rc := newReceiver(t)
	tg := mustNew(t, config(rc.srv.URL))
	createdOf := func(body string) string {
		_, rest, _ := strings.Cut(body, `"created":`)
		v, _, _ := strings.Cut(rest, ",")
		return v
	}
	ctx := context.Background()
	tg.Call(ctx, call("a-1", "invoice.due", "evt_a", "idem-a"))
	tg.Call(ctx, call("b-1", "invoice.due", "evt_b", "idem-b"))
	seq := rc.deliveries()
	require.Len(t, seq, 2)
	assert.NotEqual(t, createdOf(seq[0].Body), createdOf(seq[1].Body), "one after the other")

	// Two at once: the receiver holds the first until the second came.
	both := make(chan struct{})
	var once sync.Once
	var n atomic.Int32
	rc.mu.Lock()
	rc.reply = func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 2 {
			once.Do(func() { close(both) })
		}
		select {
		case <-both:
		case <-time.After(10 * time.Second):
		}
		_, _ = io.WriteString(w, `{"received":true}`)
	}
	rc.mu.Unlock()
	var wg sync.WaitGroup
	for _, k := range []string{"evt_c", "evt_d"} {
		wg.Go(func() { tg.Call(ctx, call(k+"-1", "invoice.due", k, "idem-"+k)) })
	}
	wg.Wait()
	at := rc.deliveries()[2:]
	require.Len(t, at, 2)
	assert.Equal(t, createdOf(at[0].Body), createdOf(at[1].Body), "delivered at once: made together")
	assert.NotEqual(t, createdOf(seq[1].Body), createdOf(at[0].Body))
}
