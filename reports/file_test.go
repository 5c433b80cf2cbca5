package reports_test

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/record"
	"github.com/idemcheck/idemcheck/reports"
)

const oldReport = `{"old": "report"}`

// halfThenFail writes more than any buffer holds, so that bytes reach the
// temporary file, and then fails.
func halfThenFail(w io.Writer) error {
	if _, err := io.WriteString(w, strings.Repeat("x", 256<<10)); err != nil {
		return err
	}
	return errors.New("renderer broke halfway")
}

func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// TestWriteFileNeverLeavesAPartialReport: a renderer that fails or panics
// halfway leaves the previous report as it was and no temporary file.
func TestWriteFileNeverLeavesAPartialReport(t *testing.T) {
	cases := []struct {
		why    string
		render func(io.Writer) error
		panics bool
	}{
		{"a renderer that fails halfway", halfThenFail, false},
		{"a renderer that panics halfway", func(w io.Writer) error {
			_, _ = io.WriteString(w, strings.Repeat("x", 256<<10))
			panic("renderer bug")
		}, true},
	}
	for _, tc := range cases {
		t.Run(tc.why, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "report.json")
			require.NoError(t, os.WriteFile(path, []byte(oldReport), 0o644))
			var err error
			func() {
				defer func() {
					if p := recover(); p != nil {
						err = errors.New("panicked")
					}
				}()
				err = reports.WriteFile(path, tc.render)
			}()
			require.Error(t, err)
			if !tc.panics {
				assert.Contains(t, err.Error(), path, "the error names the file")
			}
			got, rerr := os.ReadFile(path)
			require.NoError(t, rerr)
			assert.Equal(t, oldReport, string(got), "the old report is untouched")
			assert.Equal(t, []string{"report.json"}, entries(t, dir), "no temporary file is left")
		})
	}
}

func TestWriteFileReplacesOnSuccess(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "report.json")
	require.NoError(t, os.WriteFile(path, []byte(oldReport), 0o600))
	require.NoError(t, reports.WriteFile(path, func(w io.Writer) error {
		_, err := io.WriteString(w, "new")
		return err
	}))
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "new", string(got))
	st, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), st.Mode().Perm(), "reports are readable by CI uploaders")
	assert.Equal(t, []string{"report.json"}, entries(t, dir))
}

// TestWriteFileMakesItsDirectory: a report under a directory that does
// not exist yet (a CI job's first run) is written, parents included.
func TestWriteFileMakesItsDirectory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "reports", "nightly", "report.json")
	require.NoError(t, reports.WriteFile(path, func(w io.Writer) error {
		_, err := io.WriteString(w, "new")
		return err
	}))
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "new", string(got))
}

// TestWriteFileInterrupted kills a process in the middle of rendering (a
// child that has written part of the report and waits): the old report
// is still whole.
func TestWriteFileInterrupted(t *testing.T) {
	if path := os.Getenv("IDEMCHECK_WRITEFILE_CHILD"); path != "" {
		_ = reports.WriteFile(path, func(w io.Writer) error {
			if _, err := io.WriteString(w, strings.Repeat("x", 256<<10)); err != nil {
				return err
			}
			os.Stdout.WriteString("halfway\n")
			_, _ = io.Copy(io.Discard, os.Stdin) // until killed
			return nil
		})
		os.Exit(0)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "report.json")
	require.NoError(t, os.WriteFile(path, []byte(oldReport), 0o644))
	cmd := exec.Command(os.Args[0], "-test.run=^TestWriteFileInterrupted$")
	cmd.Env = append(os.Environ(), "IDEMCHECK_WRITEFILE_CHILD="+path)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "halfway\n", line)
	// Part of the report is on disk, in the temporary file.
	var tmp string
	for _, name := range entries(t, dir) {
		if strings.HasPrefix(name, ".report.json.tmp-") {
			tmp = name
		}
	}
	require.NotEmpty(t, tmp, "the child is mid-render")
	st, err := os.Stat(filepath.Join(dir, tmp))
	require.NoError(t, err)
	assert.Positive(t, st.Size())
	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, oldReport, string(got), "the old report is untouched by the killed writer")
}

// TestResultJSONListsNoFindingsAsEmpty: the result.json a run writes
// lists a target with no finding as findings: [], not null.
func TestResultJSONListsNoFindingsAsEmpty(t *testing.T) {
	res := &record.Result{Schema: record.ResultSchema, Targets: []record.TargetResult{{Name: "clean"}}}
	var b strings.Builder
	require.NoError(t, reports.ResultJSON(&b, res))
	assert.Contains(t, b.String(), `"findings": []`)
	assert.NotContains(t, b.String(), `"findings": null`)
}
