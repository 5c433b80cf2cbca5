package main

import (
	"bytes"
	"encoding/json"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/idemcheck/idemcheck/config"
)

// What idemcheck init writes for an MCP server is valid under the
// configuration's JSON Schema, as it is under Parse.
func TestInitMCPConfigMatchesTheSchema(t *testing.T) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(config.Schema()))
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	require.NoError(t, c.AddResource(config.SchemaURL, doc))
	sch, err := c.Compile(config.SchemaURL)
	require.NoError(t, err)

	tools := []*sdk.Tool{
		{Name: "create_order", InputSchema: json.RawMessage(`{"type":"object","properties":{"note":{"type":"string"},"amount":{"type":"integer"},"idempotency_key":{"type":"string"}}}`)},
		{Name: "list_orders", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}, InputSchema: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"}}}`)},
	}
	for _, yml := range []string{
		mcpStarter("orders", []string{"./mcpserver", "--stdio"}, "", tools),
		mcpStarter("orders", nil, "http://127.0.0.1:8080/mcp", tools),
	} {
		var v any
		require.NoError(t, yaml.Unmarshal([]byte(yml), &v))
		j, err := json.Marshal(v)
		require.NoError(t, err)
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
		require.NoError(t, err)
		assert.NoError(t, sch.Validate(inst), yml)
	}
}
