package mcp

import (
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/harness"
)

// With the key in _meta, a key-like argument of the tool's schema is no
// second key channel: idemcheck generates no value for it (a generated
// one would be reused by a twin, and sent by a call meant to carry no
// key), unless the configuration gives it one.
func TestKeyMetaLeavesKeyLikeArgumentsOut(t *testing.T) {
	t.Parallel()
	tool := &sdk.Tool{Name: "create_payment", InputSchema: map[string]any{
		"type": "object",
		"properties": map[string]any{
			"amount":     map[string]any{"type": "integer", "minimum": 1},
			"memo":       map[string]any{"type": "string"},
			"request_id": map[string]any{"type": "string"},
			"dedupKey":   map[string]any{"type": "string"},
			"customer":   map[string]any{"type": "string"},
		},
		"required": []any{"amount", "memo", "request_id"},
	}}
	meta := Config{Key: Placement{In: InMeta, Name: DefaultMetaKey}}
	p, _, err := newPlan(meta, Tool{Name: "create_payment"}, tool)
	require.NoError(t, err)
	assert.Equal(t, Placement{In: InMeta, Name: DefaultMetaKey}, p.key)
	assert.Contains(t, p.inputs, "amount")
	assert.Contains(t, p.inputs, "customer")
	assert.NotContains(t, p.inputs, "request_id", "a key-like argument with the key in _meta")
	assert.NotContains(t, p.inputs, "dedupKey")

	// Configured, it is sent as configured.
	p, _, err = newPlan(meta, Tool{Name: "create_payment", Arguments: map[string]any{"request_id": "{{key}}"}}, tool)
	require.NoError(t, err)
	assert.Equal(t, "{{key}}", p.fixed["request_id"])

	// Without key_meta, request_id is the key argument, as before.
	p, _, err = newPlan(Config{}, Tool{Name: "create_payment"}, tool)
	require.NoError(t, err)
	assert.Equal(t, Placement{In: InArgument, Name: "request_id"}, p.key)
	assert.NotContains(t, p.inputs, "dedupKey")
}

func TestKeyLike(t *testing.T) {
	t.Parallel()
	for _, n := range []string{"idempotency_key", "idempotencyKey", "Idempotency-Key", "request_id", "requestId", "client_token", "dedup_key", "idempotency_token"} {
		assert.True(t, KeyLike(n), n)
	}
	for _, n := range []string{"amount", "memo", "key", "customer_id", "request", "api_key", "order_id"} {
		assert.False(t, KeyLike(n), n)
	}
}

// A mutating tool with no key argument is marked NoKey, so that the
// checks word its findings without keys even when another tool of the
// server takes one; a tool with a key argument, or a safe one, is not.
func TestToolsWithoutAKeyAreMarked(t *testing.T) {
	t.Parallel()
	schema := func(props ...string) map[string]any {
		p := map[string]any{}
		for _, n := range props {
			p[n] = map[string]any{"type": "string"}
		}
		return map[string]any{"type": "object", "properties": p}
	}
	tools := []*sdk.Tool{
		{Name: "create_payment", InputSchema: schema("memo", "idempotency_key")},
		{Name: "create_ticket", InputSchema: schema("title")},
		{Name: "list_tickets", InputSchema: schema("query"), Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
	}
	_, ops, _, err := plans(Config{}, tools)
	require.NoError(t, err)
	noKey := map[string]bool{}
	for _, op := range ops {
		noKey[op.Name] = op.NoKey
	}
	assert.Equal(t, map[string]bool{"create_payment": false, "create_ticket": true, "list_tickets": false}, noKey)
}

// A mutating tool whose arguments are only numbers has nowhere to carry
// {{marker}}: refused, unless the target attributes by delta.
func TestNumbersOnlyToolNeedsDelta(t *testing.T) {
	t.Parallel()
	tool := &sdk.Tool{Name: "transfer", InputSchema: map[string]any{"type": "object", "properties": map[string]any{
		"from": map[string]any{"type": "integer"}, "to": map[string]any{"type": "integer"}, "amount": map[string]any{"type": "integer", "minimum": 1},
	}}}
	_, _, err := newPlan(Config{}, Tool{Name: "transfer"}, tool)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "or declare a count observer to attribute by delta")
	p, _, err := newPlan(Config{ByDelta: true}, Tool{Name: "transfer"}, tool)
	require.NoError(t, err)
	assert.Empty(t, p.marker)
	assert.Contains(t, p.inputs, "amount")
}

// An input the tool's schema has no argument for, used by a fixed
// argument's {{input.NAME}}, is a template value only: it fills the text
// and is not sent as an argument the server would refuse. An input the
// schema has is still an argument.
func TestInputOnlyInATemplateIsNoArgument(t *testing.T) {
	t.Parallel()
	tool := &sdk.Tool{Name: "create_order", InputSchema: map[string]any{
		"type": "object",
		"properties": map[string]any{
			"note":            map[string]any{"type": "string"},
			"count":           map[string]any{"type": "integer"},
			"idempotency_key": map[string]any{"type": "string"},
		},
	}}
	p, _, err := newPlan(Config{}, Tool{Name: "create_order", Marker: "note",
		Arguments: map[string]any{"note": "order {{marker}} qty {{ input.qty }} of {{input.count}}"},
		Inputs:    map[string]harness.Input{"qty": {Kind: "int", Min: 1, Max: 9}, "count": {Kind: "int", Min: 1, Max: 9}},
	}, tool)
	require.NoError(t, err)
	params, err := p.params(harness.Call{Operation: "create_order", Marker: "idem-00000000000000aa",
		Inputs: map[string]string{"qty": "7", "count": "3"}})
	require.NoError(t, err)
	args := params.Arguments.(map[string]any)
	assert.NotContains(t, args, "qty", "no argument of that name: a template value only")
	assert.EqualValues(t, 3, args["count"], "an argument of the schema is still sent")
	assert.Equal(t, "order idem-00000000000000aa qty 7 of 3", args["note"])
}
