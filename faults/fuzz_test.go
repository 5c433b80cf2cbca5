package faults_test

import (
	"encoding/json"
	"testing"

	"github.com/idemcheck/idemcheck/faults"
)

// FuzzDurationUnmarshal: any input is either rejected or read as a
// duration that writes back and reads again to the same value.
func FuzzDurationUnmarshal(f *testing.F) {
	for _, s := range []string{`"250ms"`, `"1h2m3.5s"`, `"-1s"`, `0`, `42`, `-7`, `"x"`, `null`, `true`, `1.5`,
		`"9223372036854775807ns"`, `9223372036854775807`, `""`, `"0"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var d faults.Duration
		if err := json.Unmarshal(b, &d); err != nil {
			return
		}
		out, err := json.Marshal(d)
		if err != nil {
			t.Fatalf("Marshal(%d): %v", d, err)
		}
		var back faults.Duration
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("%s read as %d, written as %s, which does not read back: %v", b, d, out, err)
		}
		if back != d {
			t.Fatalf("%s read as %d, written as %s, read back as %d", b, d, out, back)
		}
	})
}

// FuzzRegistryNew: no settings make New panic, and a fault it returns has
// the requested name.
func FuzzRegistryNew(f *testing.F) {
	f.Add("client-timeout", `{"timeout":"300ms"}`)
	f.Add("lost-response", `{"status":504}`)
	f.Add("503-before", `{}`)
	f.Add("downstream-503", `{"x":[1,2]}`)
	f.Add("nope", `null`)
	r := faults.Builtin()
	f.Fuzz(func(t *testing.T, name, settings string) {
		var m map[string]any
		if json.Unmarshal([]byte(settings), &m) != nil {
			return
		}
		fault, err := r.New(name, m)
		if err != nil {
			return
		}
		if fault.Name() != name {
			t.Fatalf("New(%q) made %q", name, fault.Name())
		}
	})
}
