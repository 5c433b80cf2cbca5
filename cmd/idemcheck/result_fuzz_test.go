package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/record"
	"github.com/idemcheck/idemcheck/reports"
)

// FuzzReadResult: whatever a result.json holds, loading it either fails
// with an error or gives a result that merges, renders in every format
// and is scored, without a panic.
func FuzzReadResult(f *testing.F) {
	golden, err := os.ReadFile("testdata/result.seed.json")
	if err == nil {
		f.Add(golden)
	}
	f.Add([]byte(`{"schema":"` + record.ResultSchema + `","targets":[{"name":"t","history":[{"id":1,"attempts":[{"n":7}]}]}]}`))
	f.Add([]byte(`{"schema":"` + record.ResultSchema + `","targets":[{"name":"t","findings":[{"check":"retry.sequential","intent":-1,"attempt":99}]}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(t.TempDir(), "result.json")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := record.ReadResultFile(path)
		if err != nil {
			return
		}
		merged, err := harness.Merge(res)
		if err != nil {
			return
		}
		for _, fm := range reports.Formats() {
			_ = fm.Render(io.Discard, res, reports.Options{}) // as read: its gate and baseline as stored
		}
		if err := harness.Compare(res, merged); err != nil {
			t.Fatalf("a result is a baseline of its own re-scoring: %v", err)
		}
		harness.ApplyGate(merged, 3, "baseline.json")
		for _, fm := range reports.Formats() {
			_ = fm.Render(io.Discard, merged, reports.Options{})
		}
		_ = gateVerdict(context.Background(), merged, true)
	})
}
