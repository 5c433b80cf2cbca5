package config

import (
	"github.com/idemcheck/idemcheck/config/schema"
	"github.com/idemcheck/idemcheck/harness"
)

// Bursts says how concurrent.duplicates races a target: Count bursts per
// mutating operation (spread over the run, each with a fresh key, after a
// warm-up), each of Size same-key copies released together.
//
//	bursts: {count: 30, size: 20}
//
// More bursts catch rarer races (the finding says in how many bursts the
// effect was duplicated); a larger size widens each race.
type Bursts struct {
	// Count is 1 to MaxBurstCount; zero or absent means the harness's
	// default (harness.DefaultBursts).
	Count int `yaml:"count,omitempty"`
	// Size is 2 to MaxBurstSize copies; zero or absent means retry.burst
	// (itself DefaultBurst by default). Set here, it wins over retry.burst.
	Size int `yaml:"size,omitempty"`
}

// Bounds of Bursts: every burst loop is bounded in count and size.
const (
	MaxBurstCount = 100
	MaxBurstSize  = 200
)

// Rules implements schema.Ruler.
func (Bursts) Rules(r *schema.Rules) {
	r.Field("count").Range(0, MaxBurstCount, schema.Sprintf("must be from 1 to 100, got %v"))
	r.Field("size").Range(0, MaxBurstSize, schema.Sprintf("must be from 2 to 200, got %v"), 1)
}

// options are the harness options b sets; none for nil or zero fields.
func (b *Bursts) options() []harness.Option {
	if b == nil {
		return nil
	}
	var out []harness.Option
	if b.Count > 0 {
		out = append(out, harness.WithBursts(b.Count))
	}
	if b.Size > 0 {
		out = append(out, harness.WithBurst(b.Size))
	}
	return out
}
