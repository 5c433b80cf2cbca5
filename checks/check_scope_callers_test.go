package checks_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/record"
)

// otherCaller adds the second caller's use of origin's key and inputs.
func otherCaller(b *recBuilder, origin int) int {
	id := b.intent(record.RoleOtherCaller, opCharge, origin)
	in := b.rec.Intent(id)
	in.Key, in.Caller = b.rec.Intent(origin).Key, 1
	in.Inputs = map[string]string{"amount": b.rec.Intent(origin).Inputs["amount"]}
	return id
}

func TestKeyScopeAcrossCallers(t *testing.T) {
	// Rows: what the second caller got for the first caller's key; only
	// its own execution is right.
	rows := []struct {
		why   string
		build func(b *recBuilder, origin, cross int)
		want  string // a part of the one finding; "" for none
	}{
		{"executed for the second caller: scoped", func(b *recBuilder, _, cross int) {
			b.try(cross, ok(201, "created", "ord_2"), mine())
		}, ""},
		{"the first caller's stored reply", func(b *recBuilder, _, cross int) {
			b.try(cross, ok(200, "created", "ord_1"))
		}, "answered with the first caller's stored reply"},
		{"refused as a reuse", func(b *recBuilder, _, cross int) {
			b.try(cross, failed(422))
		}, "was refused (422)"},
		{"refused as in flight", func(b *recBuilder, _, cross int) {
			b.try(cross, failed(409))
		}, "was refused (409)"},
		{"failed for another reason: nothing to say", func(b *recBuilder, _, cross int) {
			b.try(cross, failed(400))
		}, ""},
	}
	for _, row := range rows {
		t.Run(row.why, func(t *testing.T) {
			b := newRec()
			origin := b.intent(record.RolePlain, opCharge)
			b.try(origin, ok(201, "created", "ord_1"), mine())
			cross := otherCaller(b, origin)
			row.build(b, origin, cross)
			res, found := verdicts(t, b.done())
			fs := found[checks.CheckKeyScope]
			if row.want == "" {
				assert.Empty(t, fs, describe(fs))
				assert.Equal(t, record.StatusPass, res[checks.CheckKeyScope].Status)
				return
			}
			require.Len(t, fs, 1, describe(fs))
			assert.Equal(t, record.Major, fs[0].Severity)
			assert.Contains(t, fs[0].Message, row.want)
			assert.Contains(t, fs[0].Message, "not scoped to the caller")
		})
	}
}

// TestKeyScopeCallerProbe: the probe runs only with two callers, and
// sends the second intent as the second caller with the first's key.
func TestKeyScopeCallerProbe(t *testing.T) {
	var ks checks.Invariant
	for _, c := range checks.Checks() {
		if c.ID == checks.CheckKeyScope {
			ks = c
		}
	}
	op := record.Operation{Name: "charge", Mutating: true}
	pc := checks.ProbeContext{Op: op, Ops: []record.Operation{op}, Caps: record.DefaultCapabilities()}
	assert.Empty(t, ks.Probes(pc), "one mutating operation, one caller: nothing to cross")
	pc.Caps.Callers = 2
	ps := ks.Probes(pc)
	require.Len(t, ps, 1)
	steps := ps[0].Steps
	require.Len(t, steps, 2)
	assert.Equal(t, 0, steps[0].Caller)
	assert.Equal(t, record.RoleOtherCaller, steps[1].Role)
	assert.Equal(t, 1, steps[1].Caller)
	assert.Equal(t, 0, steps[1].KeyFrom)
}
