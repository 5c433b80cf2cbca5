package main

import (
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/config"
	"github.com/idemcheck/idemcheck/targets/mcp/mcpconfig"
)

// A tool whose description says its key goes in the call's _meta: init
// proposes key_meta, and leaves its key-like argument out of the inputs
// (one key channel).
func TestInitMCPProposesKeyMetaWhenTheDescriptionNamesIt(t *testing.T) {
	tool := &sdk.Tool{
		Name:        "create_payment",
		Description: `Charges a card. Send an idempotency key in _meta["io.example.idempotency-key"].`,
		InputSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"amount":      map[string]any{"type": "integer", "minimum": 100, "maximum": 99999},
				"description": map[string]any{"type": "string"},
				"request_id":  map[string]any{"type": "string"},
			},
			"required": []any{"amount", "description"},
		},
	}
	out := mcpStarter("pay", []string{"./server"}, "", []*sdk.Tool{tool})
	assert.Contains(t, out, "key_meta: io.example.idempotency-key")
	assert.NotContains(t, out, "key_argument")
	assert.NotContains(t, out, "request_id:", "no generated value in a key-like argument")
	f, err := config.Parse("starter.yaml", []byte(out))
	require.NoError(t, err, out)
	tg, ok := f.Targets[0].(*mcpconfig.Section)
	require.True(t, ok)
	require.Len(t, tg.Tools, 1)
	assert.Equal(t, "io.example.idempotency-key", tg.Tools[0].KeyMeta)

	// Without _meta in its description, the key argument is guessed from
	// the schema, as before.
	tool.Description = "Charges a card."
	out = mcpStarter("pay", []string{"./server"}, "", []*sdk.Tool{tool})
	assert.Contains(t, out, "key_argument: request_id   # from the input schema")
	assert.NotContains(t, out, "key_meta:")
}
