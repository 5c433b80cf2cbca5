package shop_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/examples/shop"
)

// The durable key store of the correct profile (and of every profile built
// on it): what survives a restart.

func TestCorrectKeyStoreSurvivesARestart(t *testing.T) {
	t.Parallel()
	pay := newPayments(t)
	opts := shop.Options{Profile: "correct", StateDir: t.TempDir()}

	s := mustServe(t, opts, pay)
	first := s.post(t, "/orders", "k1", order("cus_1", 1234, "idem-00000000000000d1"))
	require.Equal(t, http.StatusOK, first.Status, first)
	s.stop()

	s = mustServe(t, opts, pay)
	replay := s.post(t, "/orders", "k1", order("cus_1", 1234, "idem-00000000000000d1"))
	require.Equal(t, http.StatusOK, replay.Status, replay)
	effect, _ := replay.Effect()
	assert.Equal(t, "noop", effect)
	assert.Equal(t, "true", replay.Header.Get("Idempotent-Replayed"))
	assert.Equal(t, first.Data, replay.Data, "the same order, same id, same charge")

	reused := s.post(t, "/orders", "k1", order("cus_1", 1, "m"))
	assert.Equal(t, http.StatusUnprocessableEntity, reused.Status, "the fingerprint is stored too: %s", reused)

	next := s.post(t, "/orders", "k3", order("cus_1", 1, "m"))
	assert.Equal(t, "ord_000002", next.ID(), "ids continue after the restart, never handed out twice")
	list := s.get(t, "/orders?customer=cus_1")
	orders, _ := list.Data["orders"].([]any)
	require.Len(t, orders, 2, "the restarted shop still knows what it sold: %s", list)
	assert.Equal(t, first.Data, orders[0])
	assert.Equal(t, 2, pay.Count())
}

func TestReleasedKeyStaysBoundToItsPayloadAcrossARestart(t *testing.T) {
	t.Parallel()
	pay := newPayments(t)
	opts := shop.Options{Profile: "correct", StateDir: t.TempDir()}

	s := mustServe(t, opts, pay)
	pay.FailNextAfterCharge()
	failed := s.post(t, "/orders", "k1", order("cus_1", 1234, "m"))
	require.Equal(t, http.StatusBadGateway, failed.Status, failed)
	s.stop()

	s = mustServe(t, opts, pay)
	other := s.post(t, "/orders", "k1", order("cus_1", 99, "m"))
	assert.Equal(t, http.StatusUnprocessableEntity, other.Status, "the released key kept its payload through the restart: %s", other)
	retry := s.post(t, "/orders", "k1", order("cus_1", 1234, "m"))
	require.Equal(t, http.StatusOK, retry.Status, retry)
	assert.Equal(t, "ch_000001", retry.Data["charge"], "the charge the failed call made")
	assert.Equal(t, 1, pay.Count())
}

func TestKeyStoreReleasedWithoutAPayloadIsForgotten(t *testing.T) {
	// A released record written before released keys kept their payload
	// frees the key for any request, as it did then.
	t.Parallel()
	pay := newPayments(t)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, shop.StoreFile), []byte(
		`{"key":"k1","state":"in_progress","op":"orders","fingerprint":"f","boot":"b","at":"2026-01-01T00:00:00Z"}`+"\n"+
			`{"key":"k1","state":"released","at":"2026-01-01T00:00:01Z"}`+"\n"), 0o600))
	s := mustServe(t, shop.Options{Profile: "correct", StateDir: dir}, pay)
	r := s.post(t, "/orders", "k1", order("cus_1", 5, "m"))
	assert.Equal(t, http.StatusOK, r.Status, r)
}

func TestKeyStoreDropsATornLastLine(t *testing.T) {
	t.Parallel()
	pay := newPayments(t)
	dir := t.TempDir()
	opts := shop.Options{Profile: "correct", StateDir: dir}

	s := mustServe(t, opts, pay)
	first := s.post(t, "/orders", "k1", order("cus_1", 100, "m"))
	s.stop()
	// A process killed in the middle of writing a record leaves half a line.
	f, err := os.OpenFile(filepath.Join(dir, shop.StoreFile), os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"key":"k2","state":"in_pro`)
	require.NoError(t, err)
	require.NoError(t, f.Close())

	s = mustServe(t, opts, pay)
	assert.Equal(t, first.Data, s.post(t, "/orders", "k1", order("cus_1", 100, "m")).Data)
	second := s.post(t, "/orders", "k2", order("cus_1", 100, "m"))
	assert.Equal(t, http.StatusOK, second.Status, second)
	s.stop()

	// The records written after the torn one start on lines of their own.
	s = mustServe(t, opts, pay)
	assert.Equal(t, second.Data, s.post(t, "/orders", "k2", order("cus_1", 100, "m")).Data)
	assert.Equal(t, 2, pay.Count())
}

func TestServeRefusesAKeyStoreItCannotRead(t *testing.T) {
	t.Parallel()
	pay := newPayments(t)
	for _, tc := range []struct {
		why   string
		setup func(dir string) error
		want  string
	}{
		{"a bad line that is not the last is corruption, not a crash", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, shop.StoreFile), []byte("not json\n{\"key\":\"k\",\"state\":\"released\"}\n"), 0o600)
		}, "line 1"},
		{"the store file is a directory", func(dir string) error {
			return os.Mkdir(filepath.Join(dir, shop.StoreFile), 0o700)
		}, "key store"},
	} {
		dir := t.TempDir()
		require.NoError(t, tc.setup(dir), tc.why)
		err := shop.Serve(context.Background(), shop.Options{Profile: "correct", PaymentsURL: pay.URL(), StateDir: dir}, nil)
		require.Error(t, err, tc.why)
		assert.Contains(t, err.Error(), tc.want, tc.why)
	}
}

func TestWithoutStateDirNothingSurvives(t *testing.T) {
	t.Parallel()
	pay := newPayments(t)
	opts := shop.Options{Profile: "correct"}
	s := mustServe(t, opts, pay)
	first := s.post(t, "/orders", "k", order("cus_1", 100, "m"))
	s.stop()
	again := mustServe(t, opts, pay).post(t, "/orders", "k", order("cus_1", 100, "m"))
	effect, _ := again.Effect()
	assert.Equal(t, "created", effect, "the key was forgotten: %s", again)
	assert.Equal(t, first.Data["charge"], again.Data["charge"], "but payments got the key and replayed the charge")
	assert.Equal(t, 1, pay.Count())
}

func TestProfilesWithoutDurableStoreIgnoreStateDir(t *testing.T) {
	t.Parallel()
	pay := newPayments(t)
	for _, profile := range []string{"nokey", "memory-cache"} {
		dir := t.TempDir()
		s := mustServe(t, shop.Options{Profile: profile, StateDir: dir}, pay)
		s.post(t, "/orders", "k", order("cus_1", 100, "m"))
		s.stop()
		_, err := os.Stat(filepath.Join(dir, shop.StoreFile))
		assert.ErrorIs(t, err, os.ErrNotExist, profile)
	}
}
