package reports

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
)

// SetFile is one file of a set of reports: its name in the directory and
// what writes it.
type SetFile struct {
	Name   string
	Render func(io.Writer) error
}

// WriteSet replaces the reports in dir as a set: every file is rendered
// into a temporary file first, then each that rendered is renamed into
// place. A file that could not be rendered loses nothing else: the others
// are still written and every failure is returned together; its own
// earlier version is removed rather than left beside the new set. Report
// files of formats this set does not have (left by an earlier run with
// other formats) are removed too. So a reader never finds the reports of
// two runs side by side, except during the renames themselves.
func WriteSet(dir string, files []SetFile) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("writing the reports to %s: %w", dir, err)
	}
	tmps := make([]string, len(files))
	defer func() {
		for _, t := range tmps {
			if t != "" {
				os.Remove(t) // gone already once renamed
			}
		}
	}()
	var errs []error
	for i, f := range files {
		tmp, err := renderTemp(dir, f)
		if err != nil {
			errs = append(errs, fmt.Errorf("writing %s: %w", filepath.Join(dir, f.Name), err))
			continue
		}
		tmps[i] = tmp
	}
	for i, f := range files {
		path := filepath.Join(dir, f.Name)
		if tmps[i] == "" {
			_ = os.Remove(path) // an earlier run's, not this one's
			continue
		}
		if err := os.Rename(tmps[i], path); err != nil {
			errs = append(errs, fmt.Errorf("writing %s: %w", path, err))
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
	return errors.Join(errs...)
}

// renderTemp renders f into a synced temporary file in dir and returns its
// name; on failure nothing is left behind.
func renderTemp(dir string, f SetFile) (name string, err error) {
	tmp, err := os.CreateTemp(dir, "."+f.Name+".tmp-*")
	if err != nil {
		return "", err
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
	bw := bufio.NewWriter(tmp)
	if err = f.Render(bw); err != nil {
		return "", err
	}
	if err = bw.Flush(); err != nil {
		return "", err
	}
	if err = tmp.Sync(); err != nil {
		return "", err
	}
	if err = tmp.Close(); err != nil {
		return "", err
	}
	if err = os.Chmod(tmp.Name(), 0o644); err != nil {
		return "", err
	}
	return tmp.Name(), nil
}
