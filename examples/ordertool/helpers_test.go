package ordertool_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/examples/ordertool"
	"github.com/idemcheck/idemcheck/fakes/payments"
)

// reply is the tool's JSON reply, decoded.
type reply struct {
	OK      bool            `json:"ok"`
	Effect  string          `json:"effect"`
	Data    json.RawMessage `json:"data"`
	Reason  string          `json:"reason"`
	Error   string          `json:"error"`
	Changes []string        `json:"changes"`
}

// id returns data.id.
func (r reply) id() string {
	var d struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(r.Data, &d)
	return d.ID
}

// result is one run of the tool.
type result struct {
	code   int
	reply  reply
	stdout string
	stderr string
}

// world is what the tool runs against: a state directory, the payments
// fake and a stand-in for the email API.
type world struct {
	t     *testing.T
	state string
	pay   *payments.Server
	mail  *mailStandIn
}

func newWorld(t *testing.T) *world {
	return &world{t: t, state: t.TempDir(), pay: payments.Start(t), mail: newMailStandIn(t)}
}

// run runs the tool in-process, as `ordertool --store STORE ARGS…`.
func (w *world) run(store string, args ...string) result {
	w.t.Helper()
	full := append([]string{"--store", store, "--state-dir", w.state, "--payments", w.pay.URL(), "--email", w.mail.srv.URL}, args...)
	var out, errb bytes.Buffer
	code := ordertool.Main(context.Background(), full, &out, &errb)
	r := result{code: code, stdout: out.String(), stderr: errb.String()}
	if out.Len() > 0 {
		require.NoError(w.t, json.Unmarshal(out.Bytes(), &r.reply), "stdout must be one JSON reply: %q", out.String())
	}
	return r
}

// order runs create-order with fixed inputs and the given extra flags.
func (w *world) order(store string, extra ...string) result {
	w.t.Helper()
	return w.run(store, append([]string{"create-order", "--customer", "cus_1", "--amount", "500", "--memo", "order idem-0000000000000001"}, extra...)...)
}

// sent is one request the email stand-in received.
type sent struct {
	path string
	key  string
	body map[string]any
}

// mailStandIn is an httptest stand-in for the email API: it answers 202
// with an X-Message-Id and records what it got. fail, when set, answers
// that status instead.
type mailStandIn struct {
	srv *httptest.Server
	mu  sync.Mutex
	got []sent
}

func newMailStandIn(t *testing.T) *mailStandIn {
	m := &mailStandIn{}
	m.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(b, &body)
		m.mu.Lock()
		m.got = append(m.got, sent{path: r.URL.Path, key: r.Header.Get("Idempotency-Key"), body: body})
		n := len(m.got)
		m.mu.Unlock()
		w.Header().Set("X-Message-Id", "msg_00000"+string(rune('0'+n)))
		w.WriteHeader(http.StatusAccepted)
	}))
	t.Cleanup(m.srv.Close)
	return m
}

func (m *mailStandIn) sent() []sent {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]sent(nil), m.got...)
}

// runRaw runs the tool with exactly args, without decoding stdout.
func (w *world) runRaw(args ...string) result {
	w.t.Helper()
	var out, errb bytes.Buffer
	code := ordertool.Main(context.Background(), args, &out, &errb)
	return result{code: code, stdout: out.String(), stderr: errb.String()}
}
