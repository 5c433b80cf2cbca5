package jsonstore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/examples/internal/reftest"
	"github.com/idemcheck/idemcheck/examples/jsonstore"
	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/observe"
)

type answer struct {
	OK     bool              `json:"ok"`
	Effect string            `json:"effect"`
	Data   *jsonstore.Record `json:"data"`
	Error  string            `json:"error"`
}

// put runs one put as its own process, with the store's window and the
// command's extra flags (as the harness appends --dry-run).
func put(t *testing.T, profile, file, window, key, note string, extra ...string) (int, answer) {
	t.Helper()
	args := []string{"--profile", profile, "--file", file, "--window", window, "put", "--note", note, "--amount", "5"}
	if key != "" {
		args = append(args, "--idempotency-key", key)
	}
	args = append(args, extra...)
	r := reftest.Run(t, args...)
	var a answer
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &a), "stdout %q, stderr %q", r.Stdout, r.Stderr)
	return r.Code, a
}

// observer counts the records whose note holds a marker, in the file.
func observer(t *testing.T, file string) *observe.Observer {
	t.Helper()
	o, err := observe.Spec{Name: "store", Kind: "record", Settle: observe.Settle{Interval: 5 * time.Millisecond, Within: 10 * time.Second},
		Source: observe.File{Path: file, Items: "records", ID: "id"}}.Open(context.Background(), observe.Where{})
	require.NoError(t, err)
	t.Cleanup(func() { o.Close() })
	return o
}

func count(t *testing.T, o *observe.Observer, marker string) int {
	t.Helper()
	ledger := fakes.NewLedger()
	require.NoError(t, o.Observe(context.Background(), ledger, marker))
	return len(ledger.Effects())
}

// overlap puts two distinct intents at once, as two processes, and
// returns how many records each left.
func overlap(t *testing.T, profile, file string, round int) (int, int) {
	markers := [2]string{fmt.Sprintf("idem-%016x", 2*round), fmt.Sprintf("idem-%016x", 2*round+1)}
	var wg sync.WaitGroup
	for i, m := range markers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, a := put(t, profile, file, "300ms", "k"+strconv.Itoa(2*round+i), "order "+m)
			assert.Equal(t, 0, code)
			assert.Equal(t, "created", a.Effect, "each was told its record is stored")
		}()
	}
	wg.Wait()
	o := observer(t, file)
	return count(t, o, markers[0]), count(t, o, markers[1])
}

// rewrite: of two overlapping puts of distinct intents, both told
// "created", one record is lost: the second save wrote over the first.
// locked keeps both, round after round.
func TestOverlappingWrites(t *testing.T) {
	t.Run("rewrite loses one", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "store.json")
		for round := range 5 {
			a, b := overlap(t, "rewrite", file, round)
			if a+b < 2 {
				assert.Equal(t, 1, a+b, "one of the two survived")
				return
			}
			t.Logf("round %d: the two puts did not overlap; again", round)
		}
		t.Fatal("five rounds of two overlapping puts, and no record was lost")
	})
	t.Run("locked keeps both", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "store.json")
		for round := range 3 {
			a, b := overlap(t, "locked", file, round)
			assert.Equal(t, [2]int{1, 1}, [2]int{a, b}, "round %d", round)
		}
	})
}

// Same-key copies at once: rewrite answers each "created" with a record
// of its own (and keeps one); locked makes one and replays it.
func TestSameKeyCopies(t *testing.T) {
	for _, tc := range []struct {
		profile string
		created int
	}{{"rewrite", 4}, {"locked", 1}} {
		t.Run(tc.profile, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "store.json")
			marker := "idem-00000000000000b1"
			var mu sync.Mutex
			ids := map[string]int{}
			var wg sync.WaitGroup
			for range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					code, a := put(t, tc.profile, file, "300ms", "k1", "order "+marker)
					assert.Equal(t, 0, code)
					mu.Lock()
					ids[a.Data.ID]++
					mu.Unlock()
				}()
			}
			wg.Wait()
			assert.Len(t, ids, tc.created, "distinct records the copies were told of")
			assert.Equal(t, 1, count(t, observer(t, file), marker), "one record is in the file")
		})
	}
}

func TestRefusals(t *testing.T) {
	file := filepath.Join(t.TempDir(), "store.json")
	o := observer(t, file)
	marker := "idem-00000000000000c1"
	code, a := put(t, "locked", file, "0s", "", "order "+marker)
	assert.Equal(t, [2]any{2, "key_required"}, [2]any{code, a.Error})
	code, a = put(t, "locked", file, "0s", "k1", "order "+marker, "--dry-run")
	assert.Equal(t, [2]any{0, "would_create"}, [2]any{code, a.Effect})
	assert.Zero(t, count(t, o, marker), "nothing stored yet")
	code, a = put(t, "locked", file, "0s", "k1", "order "+marker)
	require.Equal(t, 0, code)
	assert.Equal(t, "created", a.Effect)
	code, again := put(t, "locked", file, "0s", "k1", "order "+marker)
	assert.Equal(t, [2]any{0, "noop"}, [2]any{code, again.Effect})
	assert.Equal(t, a.Data.ID, again.Data.ID)
	code, a = put(t, "locked", file, "0s", "k1", "another order "+marker)
	assert.Equal(t, [2]any{1, "key_mismatch"}, [2]any{code, a.Error})
	assert.Equal(t, 1, count(t, o, marker))
}
