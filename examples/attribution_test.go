package examples_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/examples"
	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/fakes/payments"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/internal/refexe"
	httptarget "github.com/idemcheck/idemcheck/targets/http"
)

// TestPointedElsewhereIsUntestable: the correct shop charges a payments
// service that is not the run's fake (a service configured by hand for
// another address). Its intents leave no effect the run can see, so the
// target is untestable, with the reason, and not scored 0 with a critical
// finding per intent.
func TestPointedElsewhereIsUntestable(t *testing.T) {
	t.Parallel()
	exe := refexe.Path(t)
	elsewhere, err := payments.New(payments.Options{Ledger: fakes.NewLedger()})
	require.NoError(t, err)
	defer elsewhere.Close()
	launch := &httptarget.Launch{
		Command: []string{exe, examples.Subcommand, "shop", "--profile", "correct",
			"--listen", "127.0.0.1:{{port}}", "--payments", elsewhere.URL(), "--state", "{{state_dir}}"},
		ReadyPath: "/healthz",
	}
	spec := httptarget.Spec(examples.ShopConfig("shop-elsewhere", true), launch, examples.PaymentsFake)
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	res, err := harness.Verify(ctx, []harness.Spec{spec}, harness.WithSeed(7))
	require.NoError(t, err)
	tr := res.Targets[0]
	assert.Contains(t, tr.Error, "no effect could be attributed: the target acknowledged")
	assert.Empty(t, tr.Findings)
	assert.True(t, res.Failed(), "an untestable target fails the run as exit 3 does")
}
