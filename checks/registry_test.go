package checks

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/record"
)

// everything is an operation context in which every check has something to
// ask: a target with every capability, faults of every class, bursts.
func everything(t *testing.T) []ProbeContext {
	t.Helper()
	reg := faults.Builtin()
	var fs []faults.Fault
	for _, name := range reg.Names() {
		f, err := reg.New(name, nil)
		require.NoError(t, err)
		fs = append(fs, f)
	}
	caps := record.Capabilities{Keys: true, EffectField: true, DryRun: true, Burst: true, Restart: true, Signatures: true, Reorder: true, Annotations: true, Profile: ProfileIETFDraft}
	ops := []record.Operation{
		{Name: "charge", Mutating: true, DryRun: true, Inputs: map[string]record.Input{"amount": {Kind: "int", Min: 1, Max: 9}},
			Annotations: &record.Annotations{Idempotent: true}},
		{Name: "refund", Mutating: true, Inputs: map[string]record.Input{"amount": {Kind: "int", Min: 1, Max: 9}}},
		{Name: "get", Annotations: &record.Annotations{ReadOnly: true}},
	}
	var pcs []ProbeContext
	for _, op := range ops {
		pcs = append(pcs, ProbeContext{Op: op, Caps: caps, Faults: fs, Burst: 2, Bursts: 1, Ops: ops})
	}
	return pcs
}

// checkContract asserts what every check declares: an id, a property, a
// rubric level, an evaluation, and at least one probe against a target
// that can do everything.
func checkContract(t *testing.T, c Invariant) {
	t.Helper()
	assert.NotEmpty(t, c.ID, "an id")
	assert.NotEmpty(t, c.Property, "%s: a property", c.ID)
	assert.True(t, c.Level >= 1 && c.Level <= len(Rubric()), "%s: a rubric level 1–%d, got %d", c.ID, len(Rubric()), c.Level)
	assert.NotNil(t, c.Eval, "%s: an evaluation", c.ID)
	if !assert.NotNil(t, c.Probes, "%s: the probes it needs", c.ID) {
		return
	}
	n := 0
	for _, pc := range everything(t) {
		for _, p := range c.Probes(pc) {
			n++
			assert.NotEmpty(t, p.Name, "%s: a probe has a name", c.ID)
			assert.NotEmpty(t, p.Steps, "%s: probe %q has steps", c.ID, p.Name)
		}
	}
	assert.Positive(t, n, "%s declares no probe: nothing would ever give it something to judge", c.ID)
}

// TestEveryCheckIsOneUnit: every registered check declares a level and at
// least one probe; removing either from a check's file fails here.
func TestEveryCheckIsOneUnit(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range Checks() {
		t.Run(c.ID, func(t *testing.T) {
			assert.False(t, seen[c.ID], "id registered twice")
			seen[c.ID] = true
			checkContract(t, c)
		})
	}
}

// TestEveryDeclaredCheckIsRegistered: every Invariant declared in a
// check_*.go file is in the registry, so a check cannot be written and
// forgotten.
func TestEveryDeclaredCheckIsRegistered(t *testing.T) {
	files, err := filepath.Glob("check_*.go")
	require.NoError(t, err)
	declared := 0
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, spec := range g.Specs {
				for _, v := range spec.(*ast.ValueSpec).Values {
					if cl, ok := v.(*ast.CompositeLit); ok {
						if id, ok := cl.Type.(*ast.Ident); ok && id.Name == "Invariant" {
							declared++
						}
					}
				}
			}
		}
	}
	assert.Equal(t, declared, len(Checks()), "check_*.go files declare %d checks, the registry lists %d: list every check in checks.go", declared, len(Checks()))
}

// TestEveryFaultClassHasOneOwner: the fault-class table, derived from the
// checks' Faults, gives each class exactly one check.
func TestEveryFaultClassHasOneOwner(t *testing.T) {
	classes := []faults.Class{faults.ClassClient, faults.ClassProxy, faults.ClassDownstream, faults.ClassDownstreamAmbiguous, faults.ClassCrash}
	owners := map[faults.Class][]string{}
	for _, c := range Checks() {
		for _, fc := range c.Faults {
			owners[fc] = append(owners[fc], c.ID)
		}
	}
	for _, fc := range classes {
		assert.Len(t, owners[fc], 1, "class %s: owned by %v", fc, owners[fc])
	}
	assert.Equal(t, CheckCrashRecovery, faultOwner(faults.ClassCrash))
	assert.Equal(t, CheckDownstream, faultOwner(faults.ClassDownstreamAmbiguous))
	assert.Equal(t, CheckRetryAfterFault, faultOwner(faults.ClassProxy))
}

// TestRubricNeedsAreDerived: a level needs exactly its non-optional checks.
func TestRubricNeedsAreDerived(t *testing.T) {
	for _, l := range Rubric() {
		var want []string
		for _, c := range Checks() {
			if c.Level == l.Level && !c.Optional {
				want = append(want, c.ID)
			}
		}
		assert.Equal(t, want, l.Needs, "level %d", l.Level)
	}
}

// TestPlanSharesProbes: a probe that several checks declare alike runs
// once, serving them all; a disabled check, or one that does not apply to
// the target, plans nothing.
func TestPlanSharesProbes(t *testing.T) {
	info := record.TargetInfo{Name: "shop", Operations: []record.Operation{{Name: "charge", Mutating: true}}}
	all := map[string]bool{}
	for _, c := range Checks() {
		all[c.ID] = true
	}
	ps := Planner{Enabled: all}.Plan(info)
	var seq []Planned
	for _, p := range ps {
		if p.Name == "sequential retry" {
			seq = append(seq, p)
		}
	}
	require.Len(t, seq, 1)
	assert.Equal(t, []string{CheckRetrySequential, CheckReplayConsistent, CheckReplyHonest, CheckEffectField, CheckExactlyOnce}, seq[0].Serves,
		"a check that does not apply (mcp.annotations: the target has none) is not served")
	annotated := info
	annotated.Capabilities = &record.Capabilities{Keys: true, EffectField: true, Annotations: true}
	seq = nil
	for _, p := range (Planner{Enabled: all}).Plan(annotated) {
		if p.Name == "sequential retry" {
			seq = append(seq, p)
		}
	}
	require.Len(t, seq, 1)
	assert.Equal(t, []string{CheckRetrySequential, CheckReplayConsistent, CheckReplyHonest, CheckEffectField, CheckExactlyOnce, CheckMCPAnnotations}, seq[0].Serves)
	consumer := info
	consumer.Capabilities = &record.Capabilities{Keys: true, Redelivery: true}
	for _, p := range (Planner{Enabled: all}).Plan(consumer) {
		assert.NotEqual(t, "malformed key", p.Name, "key.malformed does not apply to a queue consumer: no probe of its own")
	}

	only := Planner{Enabled: map[string]bool{CheckKeyRequired: true}}.Plan(info)
	require.Len(t, only, 1)
	assert.Equal(t, "no key", only[0].Name)
}
