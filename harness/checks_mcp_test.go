package harness_test

import "github.com/idemcheck/idemcheck/harness"

// The operations of an MCP server's hand-built records: a charge
// annotated idempotent, a lookup annotated read-only, and a deleting tool
// without destructiveHint.
const (
	opLookup = "lookup"
	opRemove = "remove_card"
)

func annotated(a harness.Annotations) *harness.Annotations { return &a }

func mcpOps() []harness.Operation {
	return []harness.Operation{
		{Name: opCharge, Mutating: true, DryRun: true, Inputs: map[string]harness.Input{"amount": {Kind: "int", Min: 1, Max: 100}},
			Annotations: annotated(harness.Annotations{Idempotent: true, Destructive: new(false)})},
		{Name: opLookup, Annotations: annotated(harness.Annotations{ReadOnly: true})},
	}
}

// mcpRec is a record of an MCP server: operations with annotations, and
// the capability that makes the mcp.* checks apply.
func mcpRec(ops ...harness.Operation) *recBuilder {
	if len(ops) == 0 {
		ops = mcpOps()
	}
	b := newRec(ops...)
	b.rec.Target.Kind = "mcp"
	b.rec.Target.Capabilities = &harness.Capabilities{Keys: true, EffectField: true, DryRun: true, Annotations: true}
	return b
}

func mcpReadOnlyCases() []checkCase {
	return []checkCase{
		{
			why: "a lookup annotated read-only that charges on each call",
			rec: func() *harness.Record {
				b := mcpRec()
				r := b.intent(read, opLookup)
				b.try(r, ok(200, "noop", ""), mine()).try(r, ok(200, "noop", ""), mine())
				return b.done()
			}(),
			fail: map[string][]harness.Severity{harness.CheckMCPReadOnlyHint: {critical}, harness.CheckSafeReadOnly: {critical}},
			msgs: map[string][]string{harness.CheckMCPReadOnlyHint: {"lookup is annotated readOnlyHint: true, but 2 calls caused 2 side effects"}},
		},
		{
			why: "a read-only lookup that reads",
			rec: func() *harness.Record {
				b := mcpRec()
				r := b.intent(read, opLookup)
				b.try(r, ok(200, "noop", "")).try(r, ok(200, "noop", ""))
				return b.done()
			}(),
			pass: []string{harness.CheckMCPReadOnlyHint, harness.CheckSafeReadOnly},
		},
		{
			why:  "a server without annotations is not judged on them",
			rec:  sequentialOK(),
			skip: []string{harness.CheckMCPReadOnlyHint},
		},
	}
}

func mcpIdempotentCases() []checkCase {
	return []checkCase{
		{
			why: "a charge annotated idempotent that charges on every identical keyless call",
			rec: func() *harness.Record {
				b := mcpRec()
				n := b.intent(noKey, opCharge)
				b.try(n, ok(201, "created", "p1"), mine()).try(n, ok(201, "created", "p2"), mine())
				return b.done()
			}(),
			fail: map[string][]harness.Severity{harness.CheckMCPIdempotentHint: {critical}, harness.CheckKeyRequired: {minor}},
			msgs: map[string][]string{harness.CheckMCPIdempotentHint: {"charge is annotated idempotentHint: true, but 2 calls with the same arguments caused 2 effects"}},
		},
		{
			why: "keyless calls refused: the hint holds",
			rec: func() *harness.Record {
				b := mcpRec()
				n := b.intent(noKey, opCharge)
				b.try(n, failed(400)).try(n, failed(400))
				return b.done()
			}(),
			pass: []string{harness.CheckMCPIdempotentHint, harness.CheckKeyRequired},
		},
		{
			why: "a charge not annotated idempotent may charge twice without a key as far as this check goes",
			rec: func() *harness.Record {
				b := mcpRec(harness.Operation{Name: opCharge, Mutating: true, DryRun: true, Annotations: annotated(harness.Annotations{Destructive: new(false)})})
				n := b.intent(noKey, opCharge)
				b.try(n, ok(201, "created", "p1"), mine()).try(n, ok(201, "created", "p2"), mine())
				return b.done()
			}(),
			fail: map[string][]harness.Severity{harness.CheckKeyRequired: {minor}},
			skip: []string{harness.CheckMCPIdempotentHint},
		},
	}
}

func mcpAnnotationsCases() []checkCase {
	return []checkCase{
		{
			why: "no annotations on a mutating tool, none on a tool the configuration calls safe, a deleting tool without destructiveHint, and a read-only hint the configuration overrides",
			rec: func() *harness.Record {
				b := mcpRec(
					harness.Operation{Name: opCharge, Mutating: true, DryRun: true},
					harness.Operation{Name: opBalance},
					harness.Operation{Name: opRemove, Mutating: true, DryRun: true, Deletes: true, Annotations: annotated(harness.Annotations{Idempotent: true})},
					harness.Operation{Name: opLookup, Mutating: true, DryRun: true, Annotations: annotated(harness.Annotations{ReadOnly: true})},
				)
				return b.done()
			}(),
			fail: map[string][]harness.Severity{harness.CheckMCPAnnotations: {minor, minor, minor, minor}},
			msgs: map[string][]string{harness.CheckMCPAnnotations: {
				"charge has no annotations at all",
				"balance has no annotations, so agents take it as mutating; the configuration says it is safe",
				"remove_card deletes, but its annotations do not say destructiveHint",
				"lookup is annotated readOnlyHint: true, but the configuration says it is mutating",
			}},
		},
		{
			why:  "every tool annotated, truthfully as far as can be read",
			rec:  mcpRec().done(),
			pass: []string{harness.CheckMCPAnnotations},
		},
		{
			why:  "a target whose operations carry no annotations (an HTTP API) is not held to them",
			rec:  sequentialOK(),
			skip: []string{harness.CheckMCPAnnotations},
		},
	}
}
