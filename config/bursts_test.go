package config_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/config"
	"github.com/idemcheck/idemcheck/harness"
)

const burstsBase = `version: 1
targets:
  - name: shop
    kind: http
    url: http://127.0.0.1:8080
    operations:
      - {name: create, mutating: true, method: POST, path: /orders, body: '{"m":"{{marker}}"}'}
`

func harnessOptions(t *testing.T, yaml string) harness.Options {
	t.Helper()
	f, err := config.Parse("idemcheck.yaml", []byte(yaml))
	require.NoError(t, err)
	_, opts, err := f.Specs()
	require.NoError(t, err)
	var o harness.Options
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

func TestBurstsSetCountAndSize(t *testing.T) {
	o := harnessOptions(t, burstsBase+"bursts: {count: 30, size: 8}\n")
	assert.Equal(t, 30, o.Bursts)
	assert.Equal(t, 8, o.Burst, "bursts.size wins over retry.burst's default")

	o = harnessOptions(t, burstsBase+"retry: {burst: 12}\nbursts: {count: 4}\n")
	assert.Equal(t, 4, o.Bursts)
	assert.Equal(t, 12, o.Burst, "without bursts.size, retry.burst stands")

	o = harnessOptions(t, burstsBase)
	assert.Zero(t, o.Bursts, "no bursts: the harness's default")
}

func TestBurstsOutOfRange(t *testing.T) {
	// Rows: each bound of each field, reported with its line and field.
	rows := []struct{ why, yaml, want string }{
		{"too many bursts", "bursts: {count: 1000}\n", "bursts.count: must be from 1 to 100, got 1000"},
		{"negative count", "bursts: {count: -2}\n", "bursts.count"},
		{"a burst of one", "bursts: {size: 1}\n", "bursts.size: must be from 2 to 200, got 1"},
		{"huge bursts", "bursts: {size: 5000}\n", "bursts.size: must be from 2 to 200, got 5000"},
		{"unknown field", "bursts: {sizes: 5}\n", "sizes"},
	}
	for _, row := range rows {
		t.Run(row.why, func(t *testing.T) {
			_, err := config.Parse("idemcheck.yaml", []byte(burstsBase+row.yaml))
			require.Error(t, err)
			assert.Contains(t, err.Error(), row.want)
			assert.True(t, strings.HasPrefix(err.Error(), "idemcheck.yaml:"), err.Error())
		})
	}
}

const burstsConsumer = `version: 1
fakes: {payments: {}}
targets:
  - name: charges
    kind: consumer
    broker: {kind: nats}
    start:
      command: [./consumer, --url, "{{broker.url}}"]
      env: {PAYMENTS_URL: "{{fakes.payments.url}}"}
    events:
      - name: charge.requested
        payload: '{"description":"order {{marker}}"}'
`

// A consumer's kind sends fewer, smaller bursts by default; a burst size
// the file gives (retry.burst, bursts.size) is its all the same.
func TestAConsumersBurstIsTheFilesWhenItGivesOne(t *testing.T) {
	limit := func(yml string) int {
		t.Helper()
		f, err := config.Parse("idemcheck.yaml", []byte(yml))
		require.NoError(t, err)
		specs, opts, err := f.Specs()
		require.NoError(t, err)
		return harness.TrialLimits(specs[0], opts...).Burst
	}
	assert.Equal(t, 4, limit(burstsConsumer), "the kind's own")
	assert.Equal(t, 12, limit(burstsConsumer+"retry: {burst: 12}\n"))
	assert.Equal(t, 20, limit(burstsConsumer+"retry: {burst: 20}\n"), "given, though it is the default of other kinds")
	assert.Equal(t, 8, limit(burstsConsumer+"bursts: {size: 8}\n"))
}
