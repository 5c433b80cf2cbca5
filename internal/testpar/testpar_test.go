package testpar_test

import (
	"flag"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/internal/testpar"
)

// wanted is the -parallel these tests ask for.
const wanted = 6

func TestMain(m *testing.M) {
	testpar.AtLeast(wanted)
	os.Exit(m.Run())
}

// parallel is the -parallel the tests run with.
func parallel(t *testing.T) int {
	n, err := strconv.Atoi(flag.Lookup("test.parallel").Value.String())
	require.NoError(t, err)
	return n
}

// TestRaisedUnlessGiven checks the setting: raised to wanted by default,
// left as the command line gave it.
func TestRaisedUnlessGiven(t *testing.T) {
	if os.Getenv("TESTPAR_CHILD") != "" {
		t.Logf("parallel=%d", parallel(t))
		return
	}
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		assert.Equal(t, max(wanted, runtime.GOMAXPROCS(0)), parallel(t))
	}
	// The same binary, given -parallel 1, keeps it.
	cmd := exec.Command(os.Args[0], "-test.run=^TestRaisedUnlessGiven$", "-test.v", "-test.parallel=1")
	cmd.Env = append(os.Environ(), "TESTPAR_CHILD=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "parallel=1")
	assert.NotContains(t, string(out), "parallel="+strconv.Itoa(wanted))
}

// TestRunsThatManyAtOnce checks that go test takes the setting: wanted
// parallel tests all wait at a barrier that only opens when every one of
// them has arrived, which the default of one per processor would never
// open on a machine with fewer processors than wanted.
func TestRunsThatManyAtOnce(t *testing.T) {
	if parallel(t) < wanted {
		t.Skipf("-parallel %d given on the command line", parallel(t))
	}
	var arrived sync.WaitGroup
	arrived.Add(wanted)
	all := make(chan struct{})
	go func() { arrived.Wait(); close(all) }()
	for i := range wanted {
		t.Run(strings.Repeat("w", i+1), func(t *testing.T) {
			t.Parallel()
			arrived.Done()
			select {
			case <-all:
			case <-time.After(time.Minute):
				t.Fatalf("the %d parallel tests never ran at once", wanted)
			}
		})
	}
}
