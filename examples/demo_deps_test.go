package examples_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/examples"
	"github.com/idemcheck/idemcheck/internal/pgserver"
	"github.com/idemcheck/idemcheck/internal/redisserver"
	"github.com/idemcheck/idemcheck/internal/refexe"
)

// TestDependencyDemoLeavesOutWhatTheMachineLacks: without PostgreSQL and
// redis-server the demo has no dependency targets, and says why for each;
// with them it has every profile of both payments services.
func TestDependencyDemoLeavesOutWhatTheMachineLacks(t *testing.T) {
	exe := refexe.Path(t)
	t.Run("without", func(t *testing.T) {
		t.Setenv(pgserver.BinEnv, t.TempDir())
		t.Setenv(redisserver.BinEnv, filepath.Join(t.TempDir(), "redis-server"))
		targets, skipped := examples.DependencyDemo(exe)
		assert.Empty(t, targets)
		require.Len(t, skipped, 2)
		assert.Contains(t, skipped[0], "(pgpay-*) is left out")
		assert.Contains(t, skipped[0], "PostgreSQL is not installed")
		assert.Contains(t, skipped[1], "(redispay-*) is left out")
		assert.Contains(t, skipped[1], "redis-server is not installed")
	})
	t.Run("with", func(t *testing.T) {
		if _, err := pgserver.Find(); err != nil {
			t.Skip(err)
		}
		if _, err := redisserver.Find(); err != nil {
			t.Skip(err)
		}
		targets, skipped := examples.DependencyDemo(exe)
		assert.Empty(t, skipped)
		built := map[string]int{}
		for _, d := range targets {
			built[d.Spec.Name] = d.Built
			assert.Equal(t, d.Built == 3, d.Flaw == "", "%s: a flaw unless built for 3", d.Spec.Name)
		}
		assert.Equal(t, map[string]int{"pgpay-correct": 3, "pgpay-any-status": 1, "pgpay-reply-after-commit": 0,
			"redispay-correct": 3, "redispay-any-status": 1}, built)
	})
}
