package reports

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/idemcheck/idemcheck/record"
)

// WriteFile writes path atomically: render writes into a temporary file in
// the same directory, which is renamed over path only when render and the
// flush succeed. On any failure, a panic in render included, path is left
// as it was and the temporary file is removed. (A process killed mid-render
// leaves path as it was too, and a hidden ".NAME.tmp-*" file behind.)
func WriteFile(path string, render func(io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	// A report directory that does not exist yet (a CI job's first run) is
	// made, parents included, rather than losing the report.
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	renamed := false
	defer func() {
		if !renamed {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	bw := bufio.NewWriter(tmp)
	if err = render(bw); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = bw.Flush(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	renamed = true
	return nil
}

// WriteDir writes into dir (made if need be) the raw result
// (record.ResultFile), cleaned as ResultJSON does, for every report can be
// made again from it, and each format's report to its File, replaced as a
// set (see WriteSet): a file that cannot be written does not stop the
// others, and every failure is returned together, after all were tried.
func WriteDir(dir string, res *record.Result, formats []Format, o Options) error {
	set := []SetFile{{Name: record.ResultFile, Render: func(w io.Writer) error { return ResultJSON(w, res) }}}
	for _, f := range formats {
		set = append(set, SetFile{Name: f.File, Render: func(w io.Writer) error { return f.Render(w, res, o) }})
	}
	return WriteSet(dir, set)
}
