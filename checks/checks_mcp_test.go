package checks_test

import (
	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/record"
)

// The operations of an MCP server's hand-built records: a charge
// annotated idempotent, a lookup annotated read-only, and a deleting tool
// without destructiveHint.
const (
	opLookup = "lookup"
	opRemove = "remove_card"
)

func annotated(a record.Annotations) *record.Annotations { return &a }

func mcpOps() []record.Operation {
	return []record.Operation{
		{Name: opCharge, Mutating: true, DryRun: true, Inputs: map[string]record.Input{"amount": {Kind: "int", Min: 1, Max: 100}},
			Annotations: annotated(record.Annotations{Idempotent: true, Destructive: new(false)})},
		{Name: opLookup, Annotations: annotated(record.Annotations{ReadOnly: true})},
	}
}

// mcpRec is a record of an MCP server: operations with annotations, and
// the capability that makes the mcp.* checks apply.
func mcpRec(ops ...record.Operation) *recBuilder {
	if len(ops) == 0 {
		ops = mcpOps()
	}
	b := newRec(ops...)
	b.rec.Target.Kind = "mcp"
	b.rec.Target.Capabilities = &record.Capabilities{Keys: true, EffectField: true, DryRun: true, Annotations: true}
	return b
}

func mcpReadOnlyCases() []checkCase {
	return []checkCase{
		{
			why: "a lookup annotated read-only that charges on each call",
			rec: func() *record.Record {
				b := mcpRec()
				r := b.intent(read, opLookup)
				b.try(r, ok(200, "noop", ""), mine()).try(r, ok(200, "noop", ""), mine())
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckMCPReadOnlyHint: {critical}, checks.CheckSafeReadOnly: {critical}},
			msgs: map[string][]string{checks.CheckMCPReadOnlyHint: {"lookup is annotated readOnlyHint: true, but 2 calls caused 2 side effects"}},
		},
		{
			why: "a read-only lookup that reads",
			rec: func() *record.Record {
				b := mcpRec()
				r := b.intent(read, opLookup)
				b.try(r, ok(200, "noop", "")).try(r, ok(200, "noop", ""))
				return b.done()
			}(),
			pass: []string{checks.CheckMCPReadOnlyHint, checks.CheckSafeReadOnly},
		},
		{
			why:  "a server without annotations is not judged on them",
			rec:  sequentialOK(),
			skip: []string{checks.CheckMCPReadOnlyHint},
		},
	}
}

func mcpIdempotentCases() []checkCase {
	return []checkCase{
		{
			why: "a charge annotated idempotent that charges on every identical keyless call",
			rec: func() *record.Record {
				b := mcpRec()
				n := b.intent(noKey, opCharge)
				b.try(n, ok(201, "created", "p1"), mine()).try(n, ok(201, "created", "p2"), mine())
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckMCPIdempotentHint: {critical}, checks.CheckKeyRequired: {minor}},
			msgs: map[string][]string{checks.CheckMCPIdempotentHint: {"charge is annotated idempotentHint: true, but 2 calls with the same arguments caused 2 effects"}},
		},
		{
			why: "keyless calls refused: the hint holds",
			rec: func() *record.Record {
				b := mcpRec()
				n := b.intent(noKey, opCharge)
				b.try(n, failed(400)).try(n, failed(400))
				return b.done()
			}(),
			pass: []string{checks.CheckMCPIdempotentHint, checks.CheckKeyRequired},
		},
		{
			why: "a charge not annotated idempotent may charge twice without a key as far as this check goes",
			rec: func() *record.Record {
				b := mcpRec(record.Operation{Name: opCharge, Mutating: true, DryRun: true, Annotations: annotated(record.Annotations{Destructive: new(false)})})
				n := b.intent(noKey, opCharge)
				b.try(n, ok(201, "created", "p1"), mine()).try(n, ok(201, "created", "p2"), mine())
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckKeyRequired: {minor}},
			skip: []string{checks.CheckMCPIdempotentHint},
		},
	}
}

func mcpAnnotationsCases() []checkCase {
	return []checkCase{
		{
			why: "no annotations on a mutating tool, none on a tool the configuration calls safe, a deleting tool without destructiveHint, and a read-only hint the configuration overrides",
			rec: func() *record.Record {
				b := mcpRec(
					record.Operation{Name: opCharge, Mutating: true, DryRun: true},
					record.Operation{Name: opBalance},
					record.Operation{Name: opRemove, Mutating: true, DryRun: true, Deletes: true, Annotations: annotated(record.Annotations{Idempotent: true})},
					record.Operation{Name: opLookup, Mutating: true, DryRun: true, Annotations: annotated(record.Annotations{ReadOnly: true})},
				)
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckMCPAnnotations: {minor, minor, minor, minor}},
			msgs: map[string][]string{checks.CheckMCPAnnotations: {
				"charge has no annotations at all",
				"balance has no annotations, so agents take it as mutating; the configuration says it is safe",
				"remove_card deletes, but its annotations do not say destructiveHint",
				"lookup is annotated readOnlyHint: true, but the configuration says it is mutating",
			}},
		},
		{
			why:  "every tool annotated, truthfully as far as can be read",
			rec:  mcpRec().done(),
			pass: []string{checks.CheckMCPAnnotations},
		},
		{
			why:  "a target whose operations carry no annotations (an HTTP API) is not held to them",
			rec:  sequentialOK(),
			skip: []string{checks.CheckMCPAnnotations},
		},
	}
}
