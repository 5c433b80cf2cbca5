package rabbitmq_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/brokers"
	"github.com/idemcheck/idemcheck/brokers/rabbitmq"
)

// BenchmarkStartClose measures starting a broker, provisioned, and
// closing it.
func BenchmarkStartClose(b *testing.B) {
	for b.Loop() {
		br, err := rabbitmq.Start(context.Background(), brokers.Options{})
		if errors.Is(err, rabbitmq.ErrNotInstalled) {
			b.Skipf("skipping: %v", err)
		}
		require.NoError(b, err)
		require.NoError(b, br.Close())
	}
}
