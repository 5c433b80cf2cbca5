package examples_test

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/examples"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/internal/refexe"
	"github.com/idemcheck/idemcheck/record"
)

// TestForgetfulStoresFoundByDefault runs the shops whose key store
// forgets (bounded to 8, 32 and 64 keys; keys kept for 1s) as real
// processes through a default run: retry.late, and only it, reports the
// retention each showed, and the correct shop has no finding.
func TestForgetfulStoresFoundByDefault(t *testing.T) {
	t.Parallel()
	exe := refexe.Path(t)
	cases := []struct {
		spec harness.Spec
		// keys is the store's bound (0: by age), the finding must bracket it.
		keys int
		// want are substrings of the retry.late finding; nil: no finding.
		want []string
	}{
		{examples.BoundedShopSpec(exe, 8), 8, []string{"other keys still replayed"}},
		{examples.BoundedShopSpec(exe, 32), 32, []string{"other keys still replayed"}},
		{examples.BoundedShopSpec(exe, 64), 64, []string{"other keys still replayed"}},
		{examples.ExpiringShopSpec(exe, time.Second), 0, []string{"after 1 other key and at least 2.5s", "even after a single other key"}},
		{examples.ShopSpec(exe, "correct"), 0, nil},
	}
	specs := make([]harness.Spec, len(cases))
	for i, tc := range cases {
		specs[i] = tc.spec
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res, err := harness.Verify(ctx, specs, harness.WithSeed(13))
	require.NoError(t, err)
	for i, tc := range cases {
		tr := res.Targets[i]
		t.Run(tr.Name, func(t *testing.T) {
			require.Empty(t, tr.Error)
			if tc.want == nil {
				assert.Empty(t, tr.Findings, "a correct store: no finding")
				assert.Equal(t, 3, tr.Score.Level)
				assert.Equal(t, record.StatusPass, status(tr, harness.CheckRetryLate))
				return
			}
			assert.Equal(t, []string{harness.CheckRetryLate}, failing(tr), "the forgetful store is its only flaw")
			assert.Equal(t, 0, tr.Score.Level)
			var msgs []string
			for _, f := range tr.Findings {
				msgs = append(msgs, f.Message)
			}
			require.Len(t, msgs, 1, "one finding per operation")
			for _, w := range tc.want {
				assert.Contains(t, msgs[0], w)
			}
			if tc.keys > 0 {
				lo, hi := bracket(t, msgs[0])
				assert.True(t, lo <= tc.keys && tc.keys <= hi, "a store of %d keys: the finding says between %d and %d", tc.keys, lo, hi)
			}
		})
	}
}

// bracket reads "it keeps somewhere between LO and HI keys" from a
// retry.late finding.
func bracket(t *testing.T, msg string) (lo, hi int) {
	t.Helper()
	m := regexp.MustCompile(`somewhere between (\d+) and (\d+) keys`).FindStringSubmatch(msg)
	require.NotNil(t, m, msg)
	lo, _ = strconv.Atoi(m[1])
	hi, _ = strconv.Atoi(m[2])
	return lo, hi
}

func status(tr harness.TargetResult, id string) record.Status {
	for _, c := range tr.Checks {
		if c.ID == id {
			return c.Status
		}
	}
	return ""
}

// recordingTB is a harness.TB that keeps what Check reports.
type recordingTB struct {
	mu     sync.Mutex
	errors []string
	failed bool
}

func (r *recordingTB) Helper()                   {}
func (r *recordingTB) Name() string              { return "recording" }
func (r *recordingTB) Logf(string, ...any)       {}
func (r *recordingTB) Failed() bool              { r.mu.Lock(); defer r.mu.Unlock(); return r.failed }
func (r *recordingTB) Fatalf(f string, a ...any) { r.Errorf(f, a...) }
func (r *recordingTB) Errorf(f string, a ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(f, a...))
	r.failed = true
}

// TestForgetfulStoreFailsCheck: harness.Check, as a go test of the
// target would call it, fails on a store bounded to 8 or 64 keys, and on
// one that keeps keys 1s, with the retention it observed, and passes the
// correct shop.
func TestForgetfulStoreFailsCheck(t *testing.T) {
	t.Parallel()
	exe := refexe.Path(t)
	for _, tc := range []struct {
		spec harness.Spec
		want []string
	}{
		{examples.BoundedShopSpec(exe, 8), []string{"after 8 other keys", "somewhere between 5 and 8 keys"}},
		{examples.BoundedShopSpec(exe, 64), []string{"other keys still replayed", "somewhere between"}},
		{examples.ExpiringShopSpec(exe, time.Second), []string{"even after a single other key"}},
	} {
		forgetful := &recordingTB{}
		harness.Check(forgetful, tc.spec, harness.WithSeed(5), harness.WithChecks(harness.CheckRetryLate, harness.CheckRetrySequential))
		require.True(t, forgetful.Failed(), tc.spec.Name)
		out := strings.Join(forgetful.errors, "\n")
		assert.Contains(t, out, "retry.late", tc.spec.Name)
		for _, w := range tc.want {
			assert.Contains(t, out, w, tc.spec.Name)
		}
	}

	correct := &recordingTB{}
	harness.Check(correct, examples.ShopSpec(exe, "correct"), harness.WithSeed(5), harness.WithChecks(harness.CheckRetryLate, harness.CheckRetrySequential))
	assert.False(t, correct.Failed(), "%v", correct.errors)
}
