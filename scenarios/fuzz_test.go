package scenarios_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/idemcheck/idemcheck/scenarios"
)

// FuzzLoad: whatever a saved-trials file holds, Load refuses it or gives
// trials that are valid, describe themselves and can be checked against
// limits, without a panic.
func FuzzLoad(f *testing.F) {
	f.Add([]byte(`[{"target":"t","seed":1,"trial":{"steps":[{"op":"create","key":"fresh","burst":3},{"op":"create","key":"again","of":0,"fault":"reset"}]},"checks":["exactly-once"]}]`))
	f.Add([]byte(`[{"trial":{"steps":[{"op":"x","key":"twin","of":-1}]}}]`))
	f.Add([]byte(`[{"trial":{"steps":[{"op":"x","key":"again","of":99999999999}]}}]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(t.TempDir(), "trials.json")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		saved, err := scenarios.Load(path)
		if err != nil {
			return
		}
		for _, s := range saved {
			if err := s.Trial.Validate(); err != nil {
				t.Fatalf("Load returned an invalid trial: %v", err)
			}
			_ = s.Trial.String()
			_ = s.Trial.Within(scenarios.Limits{Burst: 20, Faults: []string{"reset"}})
		}
	})
}
