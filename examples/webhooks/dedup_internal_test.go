package webhooks

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The lease of the durable claim, with a clock the test moves.
func TestDurableClaimLease(t *testing.T) {
	dir := t.TempDir()
	now := time.Unix(1000, 0)
	clock := func() time.Time { return now }
	open := func(boot string) dedup {
		d, err := newDurable(dedupDeps{dir: dir, boot: boot, lease: 30 * time.Second, now: clock})
		require.NoError(t, err)
		return d
	}
	ev := event{ID: "evt_1"}
	ctx := context.Background()

	a := open("boot-a")
	_, v, err := a.begin(ctx, ev)
	require.NoError(t, err)
	require.Equal(t, process, v)
	_, v, _ = a.begin(ctx, ev)
	assert.Equal(t, inFlight, v, "the same process holds it")

	now = now.Add(31 * time.Second)
	cl, v, _ := a.begin(ctx, ev)
	assert.Equal(t, process, v, "an expired lease is taken over")

	b := open("boot-b")
	_, v, _ = b.begin(ctx, ev)
	assert.Equal(t, process, v, "a claim of a dead process (another boot) is stale at once")

	require.NoError(t, cl.done())
	_, v, _ = b.begin(ctx, ev)
	assert.Equal(t, duplicate, v)
}

func TestDurableTornClaimIsStale(t *testing.T) {
	dir := t.TempDir()
	d, err := newDurable(dedupDeps{dir: dir, boot: "b", lease: time.Minute, now: time.Now})
	require.NoError(t, err)
	base := d.(*durable).base("evt_1")
	require.NoError(t, os.WriteFile(base+".claim", []byte(`{"boot":"b","unt`), 0o600))
	_, v, err := d.begin(context.Background(), event{ID: "evt_1"})
	require.NoError(t, err)
	assert.Equal(t, process, v, "a claim torn by a crash mid-write does not block the event")
	assert.Equal(t, filepath.Join(dir, "events"), filepath.Dir(base))
}

func TestMarkFirstClaimUndoesNothing(t *testing.T) {
	d, err := newMarkFirst(dedupDeps{dir: t.TempDir(), boot: "b", lease: time.Minute, now: time.Now})
	require.NoError(t, err)
	cl, v, err := d.begin(context.Background(), event{ID: "evt_1"})
	require.NoError(t, err)
	require.Equal(t, process, v)
	cl.release()
	_, v, _ = d.begin(context.Background(), event{ID: "evt_1"})
	assert.Equal(t, duplicate, v, "seen before processed, and never un-seen")
}
