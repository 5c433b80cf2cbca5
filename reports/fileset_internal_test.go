package reports

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSetCutShortHasNoManifest stops a replacement between two renames,
// as a kill would: the directory then holds a new result.json beside an
// old report, and no manifest, so no reader that trusts the manifest takes
// them for one set; while the renames go on there is no manifest either.
func TestSetCutShortHasNoManifest(t *testing.T) {
	dir := t.TempDir()
	set := func(run string) []SetFile {
		return []SetFile{
			{Name: "result.json", Render: func(w io.Writer) error { _, err := io.WriteString(w, run); return err }},
			{Name: "report.json", Render: func(w io.Writer) error { _, err := io.WriteString(w, run); return err }},
		}
	}
	require.NoError(t, WriteSet(dir, set("old")))
	_, err := VerifySet(dir)
	require.NoError(t, err, "a whole set is trusted")

	type killed struct{}
	afterRename = func(name string) {
		_, err := ReadManifest(dir)
		assert.ErrorIs(t, err, ErrNoManifest, "during the renames, after %s", name)
		panic(killed{})
	}
	defer func() { afterRename = nil }()
	func() {
		defer func() { require.Equal(t, killed{}, recover()) }()
		_ = WriteSet(dir, set("new"))
	}()

	b, err := os.ReadFile(filepath.Join(dir, "result.json"))
	require.NoError(t, err)
	assert.Equal(t, "new", string(b))
	b, err = os.ReadFile(filepath.Join(dir, "report.json"))
	require.NoError(t, err)
	assert.Equal(t, "old", string(b), "the cut: two runs side by side")
	_, err = VerifySet(dir)
	assert.ErrorIs(t, err, ErrNoManifest, "and nothing vouches for them")
}
