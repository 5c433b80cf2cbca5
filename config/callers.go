package config

import (
	"fmt"
	"maps"
	"slices"
)

// Caller is one caller's credentials: the headers that identify it to the
// target (an Authorization, an API key, an account id), set on each of its
// requests over the operation's own headers.
//
//	callers:
//	  - headers: {Authorization: "Bearer test-token-a"}
//	  - headers: {Authorization: "Bearer test-token-b"}
//
// With two callers, key.scope sends the same key from both: a target that
// keys its store by the key alone answers the second caller from the
// first one's record.
type Caller struct {
	Headers map[string]string `yaml:"headers"`
}

// MaxCallers bounds callers: key.scope uses two.
const MaxCallers = 8

func (v *validator) callers(path string, cs []Caller) {
	if len(cs) < 2 || len(cs) > MaxCallers {
		v.errorf(path, "%d callers: declare 2 to %d, each with the headers that identify it (key.scope sends one key from two callers)", len(cs), MaxCallers)
		return
	}
	seen := map[string]int{}
	for i, c := range cs {
		p := pathIndex(path, i)
		if len(c.Headers) == 0 {
			v.errorf(pathField(p, "headers"), "missing: the headers that identify this caller, e.g. {Authorization: \"Bearer …\"}")
			continue
		}
		for _, k := range slices.Sorted(maps.Keys(c.Headers)) {
			if !validHeaderName(k) {
				v.errorf(pathKey(pathField(p, "headers"), k), "invalid header name %q", k)
			}
		}
		id := fmt.Sprint(c.Headers) // sorted by key
		if j, dup := seen[id]; dup {
			v.errorf(pathField(p, "headers"), "the same headers as callers[%d]: two callers must differ in what identifies them", j)
		}
		seen[id] = i
	}
}
