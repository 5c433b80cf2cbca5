package reports

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// SetFile is one file of a set of reports: its name in the directory and
// what writes it.
type SetFile struct {
	Name   string
	Render func(io.Writer) error
}

// WriteSet replaces the reports in dir as a set: every file is rendered
// into a temporary file first; then the manifest (ManifestFile) is
// removed, each file that rendered is renamed into place, and a new
// manifest listing them is written last. A file that could not be
// rendered loses nothing else: the others are still written and every
// failure is returned together; its own earlier version is removed rather
// than left beside the new set. Report files of formats this set does not
// have (left by an earlier run with other formats) are removed too.
//
// The renames are not one step: a process killed among them leaves files
// of two runs side by side, and no manifest. A reader that trusts only
// what the manifest lists (VerifySet, Manifest.Check; idemcheck report
// does) never takes such files for a set.
func WriteSet(dir string, files []SetFile) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("writing the reports to %s: %w", dir, err)
	}
	tmps := make([]string, len(files))
	entries := make([]ManifestEntry, len(files))
	defer func() {
		for _, t := range tmps {
			if t != "" {
				os.Remove(t) // gone already once renamed
			}
		}
	}()
	var errs []error
	for i, f := range files {
		tmp, entry, err := renderTemp(dir, f)
		if err != nil {
			errs = append(errs, fmt.Errorf("writing %s: %w", filepath.Join(dir, f.Name), err))
			continue
		}
		tmps[i], entries[i] = tmp, entry
	}
	manifest := filepath.Join(dir, ManifestFile)
	if err := os.Remove(manifest); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return errors.Join(append(errs, fmt.Errorf("replacing the set in %s: %w", dir, err))...)
	}
	m := Manifest{Schema: ManifestSchema}
	for i, f := range files {
		path := filepath.Join(dir, f.Name)
		if tmps[i] == "" {
			_ = os.Remove(path) // an earlier run's, not this one's
			continue
		}
		if err := os.Rename(tmps[i], path); err != nil {
			errs = append(errs, fmt.Errorf("writing %s: %w", path, err))
			continue
		}
		m.Files = append(m.Files, entries[i])
		if afterRename != nil {
			afterRename(f.Name)
		}
	}
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = f.Name
	}
	for _, fm := range Formats() {
		if !slices.Contains(names, fm.File) {
			_ = os.Remove(filepath.Join(dir, fm.File)) // an earlier run's, not this one's
		}
	}
	m.Written = time.Now().UTC()
	if err := WriteFile(manifest, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(m)
	}); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// afterRename, when set (by a test), is called after each file of a set
// is renamed into place.
var afterRename func(name string)

// renderTemp renders f into a synced temporary file in dir and returns its
// name and its manifest entry; on failure nothing is left behind.
func renderTemp(dir string, f SetFile) (name string, entry ManifestEntry, err error) {
	tmp, err := os.CreateTemp(dir, "."+f.Name+".tmp-*")
	if err != nil {
		return "", entry, err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("rendering failed: %v", r)
		}
	}()
	hw := newHashWriter(tmp)
	bw := bufio.NewWriter(hw)
	if err = f.Render(bw); err != nil {
		return "", entry, err
	}
	if err = bw.Flush(); err != nil {
		return "", entry, err
	}
	if err = tmp.Sync(); err != nil {
		return "", entry, err
	}
	if err = tmp.Close(); err != nil {
		return "", entry, err
	}
	if err = os.Chmod(tmp.Name(), 0o644); err != nil {
		return "", entry, err
	}
	return tmp.Name(), hw.entry(f.Name), nil
}
