package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/record"
)

// missingEffect counts only what exactly-once may call lost: an
// acknowledged, mutating plain, keyless, burst or twin intent without
// effect.
func TestMissingEffect(t *testing.T) {
	acked := []record.Attempt{{N: 1, Reply: record.Reply{Outcome: record.OK}}}
	failed := []record.Attempt{{N: 1, Reply: record.Reply{Outcome: record.Fail}}}
	effects := []fakes.Effect{{Seq: 1, Markers: []string{"done"}}}
	for _, tc := range []struct {
		in   record.Intent
		want bool
	}{
		{record.Intent{Role: record.RolePlain, Mutating: true, Marker: "m", Attempts: acked}, true},
		{record.Intent{Role: record.RoleNoKey, Mutating: true, Marker: "m", Attempts: acked}, true},
		{record.Intent{Role: record.RoleBurst, Mutating: true, Marker: "m", Attempts: acked}, true},
		{record.Intent{Role: record.RoleTwin, Mutating: true, Marker: "m", Attempts: acked}, true},
		{record.Intent{Role: record.RolePlain, Mutating: true, Marker: "done", Attempts: acked}, false},
		{record.Intent{Role: record.RolePlain, Mutating: true, Marker: "m", Attempts: failed}, false},
		{record.Intent{Role: record.RolePlain, Mutating: false, Marker: "m", Attempts: acked}, false},
		{record.Intent{Role: record.RoleDryRun, Mutating: true, Marker: "m", Attempts: acked}, false},
		{record.Intent{Role: record.RoleMismatch, Mutating: true, Marker: "m", Attempts: acked}, false},
		{record.Intent{Role: record.RoleFiller, Mutating: true, Marker: "m", Attempts: acked}, false},
	} {
		assert.Equal(t, tc.want, missingEffect([]record.Intent{tc.in}, effects), "%s, mutating %v, marker %s, %s", tc.in.Role, tc.in.Mutating, tc.in.Marker, tc.in.Attempts[0].Outcome)
	}
}
