package examples_test

import (
	"context"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/examples"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/internal/pgserver"
	"github.com/idemcheck/idemcheck/internal/refexe"
	"github.com/idemcheck/idemcheck/record"
)

// pgpayCases are the payments service's profiles, the score each is
// built for and exactly the checks its flaw fails, besides those it may
// fail too (short-lease's lease is outlived by a copy of a burst that a
// loaded machine holds longer than it: a true duplicate, only not one
// every run meets).
var pgpayCases = []struct {
	profile string
	score   int
	failing []string
	mayFail []string
}{
	{"correct", 3, nil, nil},
	{"any-status", 1, []string{"dependency.recovery"}, nil},
	{"short-lease", 0, []string{"dependency.recovery"}, []string{"concurrent.duplicates"}},
	{"reply-after-commit", 0, []string{"concurrent.duplicates", "crash.recovery", "dependency.recovery"}, nil},
}

// depFaults are the dependency faults and the crashes at a commit.
func depFaults(t *testing.T) []faults.Fault {
	var fs []faults.Fault
	for _, n := range []string{faults.NameDepError, faults.NameDepResetAfterCommit, faults.NameDepStall, faults.NameDepRefuse,
		faults.NameCrashBeforeCommit, faults.NameCrashAfterCommit} {
		f, err := faults.Builtin().New(n, nil)
		require.NoError(t, err)
		fs = append(fs, f)
	}
	return fs
}

// TestPgpay scores every profile of the payments service on a throwaway
// PostgreSQL behind the dependency proxy, under the dependency faults.
func TestPgpay(t *testing.T) {
	t.Parallel()
	if _, err := pgserver.Find(); err != nil {
		t.Skip(err)
	}
	exe := refexe.Path(t)
	for _, tc := range pgpayCases {
		t.Run(tc.profile, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
			defer cancel()
			res, err := harness.Verify(ctx, []harness.Spec{examples.PgpaySpec(exe, "pgpay-"+tc.profile, tc.profile)},
				harness.WithSeed(7), harness.WithFaults(append(harness.DefaultFaults(), depFaults(t)...)...))
			require.NoError(t, err)
			tr := res.Targets[0]
			require.Empty(t, tr.Error, "the target could be tested")
			for _, f := range tr.Findings {
				t.Logf("%s %s [%s]: %s", f.Severity, f.Check, f.Fault, f.Message)
			}
			t.Logf("unsupported: %v", tr.Record.Unsupported)
			got := slices.DeleteFunc(failing(tr), func(id string) bool { return slices.Contains(tc.mayFail, id) })
			assert.Equal(t, tc.failing, got)
			assert.Equal(t, tc.score, tr.Score.Level)
			for _, n := range []string{faults.NameDepError, faults.NameDepStall, faults.NameCrashAfterCommit, faults.NameCrashBeforeCommit} {
				assert.NotContains(t, tr.Record.Unsupported, n, "a target counted only by observers takes %s", n)
			}
			// The crashes at the effect, which need a fake, are the
			// crashes at the commit's: not examined, and no limit.
			covered := map[string]string{}
			for _, u := range tr.NotExamined {
				if u.Cause == record.CauseCovered {
					covered[u.Fault] = u.Reason
				}
			}
			assert.Contains(t, covered[faults.NameCrashBeforeEffect], "crash-before-commit, which kills it at its database's commit, was tried instead")
			assert.Contains(t, covered[faults.NameCrashAfterEffect], "crash-after-commit, which kills it at its database's commit, was tried instead")
			assert.NotContains(t, tr.Score.Reason, "crash-before-effect")
		})
	}
}

// TestPgpayUntestable: a dependency that does not answer makes the target
// untestable, with the reason, at once.
func TestPgpayUntestable(t *testing.T) {
	t.Parallel()
	exe := refexe.Path(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := l.Addr().String()
	require.NoError(t, l.Close())
	spec := examples.PgpaySpec(exe, "pgpay-nodb", "correct")
	spec.Dependencies[0].URL = "postgres://app@" + closed + "/pay?sslmode=disable"
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	start := time.Now()
	res, err := harness.Verify(ctx, []harness.Spec{spec}, harness.WithSeed(7))
	require.NoError(t, err)
	tr := res.Targets[0]
	assert.Contains(t, tr.Error, "the database cannot be reached", "the reason is given")
	assert.Contains(t, tr.Error, "dependency db")
	assert.Less(t, time.Since(start), 30*time.Second, "never a hang")
}

// TestPgpayInsistsOnTLS: a target that insists on TLS to its database
// (sslmode=require) is untestable, and the reason says why and what to
// change, at once. The same service handed the proxy's own URL
// (sslmode=disable) is tested: TestPgpay; sslmode=prefer through the
// proxy is deps/postgres's TestTLSDeclined.
func TestPgpayInsistsOnTLS(t *testing.T) {
	t.Parallel()
	if _, err := pgserver.Find(); err != nil {
		t.Skip(err)
	}
	exe := refexe.Path(t)
	// The database's name does not matter: the service gives up before
	// it is asked for.
	spec := examples.PgpaySpecURL(exe, "pgpay-tls", "correct", "postgres://postgres@{{deps.db.addr}}/postgres?sslmode=require")
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	res, err := harness.Verify(ctx, []harness.Spec{spec}, harness.WithSeed(7), harness.WithChecks(harness.CheckRetrySequential))
	require.NoError(t, err)
	tr := res.Targets[0]
	assert.True(t, res.Failed(), "untestable: exit 3")
	assert.Contains(t, tr.Error, "dependency db")
	assert.Contains(t, tr.Error, "sslmode=prefer or disable", "the reason says what to change")
}
