package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// notesServer is an MCP server that keeps orders in memory: create_order
// makes one (once per idempotency key, unless it forgets keys) and
// list_orders finds them by a search string.
type notesServer struct {
	forgetKeys bool

	mu     sync.Mutex
	orders []map[string]string
	byKey  map[string]string
}

type createOrderIn struct {
	Note           string `json:"note"`
	IdempotencyKey string `json:"idempotency_key"`
}

type createOrderOut struct {
	ID     string `json:"id"`
	Effect string `json:"effect"`
}

type listOrdersIn struct {
	Search string `json:"search"`
}

type listOrdersOut struct {
	Orders []map[string]string `json:"orders"`
}

func (n *notesServer) handler() http.Handler {
	srv := sdk.NewServer(&sdk.Implementation{Name: "orders", Version: "1"}, nil)
	no := false
	sdk.AddTool(srv, &sdk.Tool{Name: "create_order", Description: "Creates an order; a retry with the same idempotency_key makes none.",
		Annotations: &sdk.ToolAnnotations{IdempotentHint: true, DestructiveHint: &no}},
		func(_ context.Context, _ *sdk.CallToolRequest, in createOrderIn) (*sdk.CallToolResult, createOrderOut, error) {
			if in.IdempotencyKey == "" {
				return nil, createOrderOut{}, errors.New("idempotency_key is required")
			}
			n.mu.Lock()
			defer n.mu.Unlock()
			if id, ok := n.byKey[in.IdempotencyKey]; ok && !n.forgetKeys {
				return nil, createOrderOut{ID: id, Effect: "noop"}, nil
			}
			id := fmt.Sprintf("ord_%d", len(n.orders)+1)
			n.orders = append(n.orders, map[string]string{"id": id, "note": in.Note})
			n.byKey[in.IdempotencyKey] = id
			return nil, createOrderOut{ID: id, Effect: "created"}, nil
		})
	sdk.AddTool(srv, &sdk.Tool{Name: "list_orders", Description: "Lists the orders whose note holds search.",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *sdk.CallToolRequest, in listOrdersIn) (*sdk.CallToolResult, listOrdersOut, error) {
			n.mu.Lock()
			defer n.mu.Unlock()
			out := listOrdersOut{Orders: []map[string]string{}}
			for _, o := range n.orders {
				if strings.Contains(o["note"], in.Search) {
					out.Orders = append(out.Orders, o)
				}
			}
			return nil, out, nil
		})
	return sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
}

// TestMCPOverHTTPS: an MCP server at an https:// URL (a certificate for
// "localhost", trusted through SSL_CERT_FILE) is tested over TLS, its
// calls through the fault proxy and its orders read back by a session
// of the observer's own: a server that keeps its keys has no finding but
// the dry run it does not offer, one that forgets them is caught by the
// same probes.
func TestMCPOverHTTPS(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		forget bool
		// fake declares a payments fake the server never calls: its
		// downstream faults have nothing to act on, as with no fake.
		fake bool
		// untrusted runs without the certificate in SSL_CERT_FILE.
		untrusted bool
	}{
		{"keeps its keys", false, false, false},
		{"forgets its keys", true, false, false},
		{"keeps its keys, a fake it never calls", false, true, false},
		{"not trusted", false, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ns := &notesServer{forgetKeys: tc.forget, byKey: map[string]string{}}
			srv, base := localhostTLSServer(t, ns.handler())
			defer srv.Close()
			cfg := filepath.Join(t.TempDir(), "idemcheck.yaml")
			fakes := ""
			if tc.fake {
				fakes = "fakes: {payments: {}}\n"
			}
			require.NoError(t, os.WriteFile(cfg, []byte(fmt.Sprintf(`version: 1
%stargets:
  - name: orders-mcp
    kind: mcp
    url: %q
    observe:
      - name: orders
        mcp: {url: %q, tool: list_orders, arguments: {search: "{{marker}}"}, items: orders, id: id}
    tools:
      - name: create_order
        marker: note
      - name: list_orders
`, fakes, base+"/mcp", base+"/mcp")), 0o644))

			code, tr, stderr := runOverTLS(t, srv, cfg, !tc.untrusted)
			if tc.untrusted {
				// The proxy's reason, not the SDK's "Bad Gateway".
				assert.Equal(t, exitHarness, code)
				assert.Contains(t, tr["error"], "TLS handshake")
				assert.Contains(t, tr["error"], "SSL_CERT_FILE")
				return
			}
			require.Empty(t, tr["error"], "the server is reached over TLS; %s", stderr)
			failing := map[string]bool{}
			fs, _ := tr["findings"].([]any)
			for _, f := range fs {
				m := f.(map[string]any)
				failing[m["check"].(string)] = true
				// The server ignores keys in every session alike: the
				// sessions a burst came in are not the cause.
				assert.NotContains(t, m["message"], "kept per session")
			}
			if !tc.forget {
				// It offers no dry run, and says so by its schema: that
				// is all.
				assert.Equal(t, map[string]bool{"dryrun": true}, failing, "findings %v", fs)
				assert.Equal(t, float64(2), tr["score"], "held back by the dry run alone: %v", tr["score_reason"])
				if tc.fake {
					assert.Contains(t, fmt.Sprint(tr["not_examined"]), "made no call to the payments fake in the whole run")
				}
			} else {
				assert.True(t, failing["retry.sequential"], "findings %v", fs)
				assert.True(t, failing["concurrent.duplicates"], "findings %v", fs)
				assert.True(t, failing["retry.late"], "findings %v", fs)
			}
			assert.Contains(t, fmt.Sprint(tr["observers"]), "orders (mcp)")
			ns.mu.Lock()
			defer ns.mu.Unlock()
			assert.NotEmpty(t, ns.orders, "the calls reached the server")
		})
	}
}
