package reports_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/reports"
)

func text(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

// TestWriteSetNeverMixesRuns: when some reports cannot be rendered, the
// others are still replaced (nothing else is lost) and the failed ones'
// earlier versions are removed rather than left beside the new set; a
// report of a format the new set does not have is removed.
func TestWriteSetNeverMixesRuns(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, reports.WriteSet(dir, []reports.SetFile{
		{Name: "result.json", Render: text("old result")},
		{Name: "report.md", Render: text("old md")},
		{Name: "report.xml", Render: text("old xml")},
	}))

	err := reports.WriteSet(dir, []reports.SetFile{
		{Name: "result.json", Render: text("new result")},
		{Name: "report.md", Render: func(io.Writer) error { return errors.New("disk full") }},
		{Name: "report.xml", Render: func(io.Writer) error { panic("a renderer bug") }},
	})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "disk full")
	assert.Contains(t, err.Error(), "a renderer bug")
	assert.Equal(t, "new result", read(t, filepath.Join(dir, "result.json")), "a failed report loses no other")
	assert.NoFileExists(t, filepath.Join(dir, "report.md"), "no stale report beside the new result")
	entries, _ := os.ReadDir(dir)
	assert.Len(t, entries, 2, "result.json and the manifest, no temporary file left behind")
	m, err := reports.VerifySet(dir)
	require.NoError(t, err)
	require.Len(t, m.Files, 1, "the manifest lists what was written, not what failed")
	assert.Equal(t, "result.json", m.Files[0].Name)

	require.NoError(t, reports.WriteSet(dir, []reports.SetFile{
		{Name: "result.json", Render: text("new result")},
		{Name: "report.md", Render: text("new md")},
	}))
	assert.Equal(t, "new result", read(t, filepath.Join(dir, "result.json")))
	assert.Equal(t, "new md", read(t, filepath.Join(dir, "report.md")))
	assert.NoFileExists(t, filepath.Join(dir, "report.xml"), "an earlier run's report of another format is not left beside the new set")
}

// TestManifestTellsTheSet: the manifest lists every file of the set with
// its digest; a file that is not the one it lists (another run's, or
// changed since) is refused.
func TestManifestTellsTheSet(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, reports.WriteSet(dir, []reports.SetFile{
		{Name: "result.json", Render: text(`{"run":1}`)},
		{Name: "report.md", Render: text("# one")},
	}))
	m, err := reports.VerifySet(dir)
	require.NoError(t, err)
	assert.Equal(t, reports.ManifestSchema, m.Schema)
	assert.NoError(t, m.Check("result.json", []byte(`{"run":1}`)))
	assert.ErrorContains(t, m.Check("result.json", []byte(`{"run":2}`)), "not the one manifest.json lists")
	assert.ErrorContains(t, m.Check("report.html", nil), "does not list")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "report.md"), []byte("# two"), 0o644))
	_, err = reports.VerifySet(dir)
	assert.ErrorContains(t, err, "report.md is not the one")

	_, err = reports.VerifySet(t.TempDir())
	assert.ErrorIs(t, err, reports.ErrNoManifest)
}
