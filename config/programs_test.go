package config_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/config"
)

// TestCheckPrograms: what cannot run is found before the run, at its line
// and column, and a missing directory is called a directory.
func TestCheckPrograms(t *testing.T) {
	dir := t.TempDir()
	notExec := filepath.Join(dir, "notexec")
	require.NoError(t, os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644))
	exe := filepath.Join(dir, "tool")
	require.NoError(t, os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755))
	rows := []struct {
		why, command, dir, want string
	}{
		{"a missing program", filepath.Join(dir, "nope"), "", `idemcheck.yaml:7:15: targets[0].command[0]: the program "` + filepath.Join(dir, "nope") + `" does not exist`},
		{"a program not on PATH", "no-such-tool-xyz", "", `targets[0].command[0]: the program "no-such-tool-xyz" is not on PATH`},
		{"a program that is not executable", notExec, "", "is not executable"},
		{"a directory given as the program", dir, "", "is a directory, not a program"},
		{"a missing directory is a directory, not a binary", "./tool", filepath.Join(dir, "gone"), `idemcheck.yaml:8:10: targets[0].dir: the directory "` + filepath.Join(dir, "gone") + `" does not exist`},
		{"a program relative to its dir", "./tool", dir, ""},
		{"a program on PATH", "sh", "", ""},
		{"a placeholder is checked at run time", "{{state_dir}}/tool", "", ""},
	}
	for _, r := range rows {
		t.Run(r.why, func(t *testing.T) {
			dirLine := ""
			if r.dir != "" {
				dirLine = fmt.Sprintf("    dir: %q\n", r.dir)
			}
			yml := fmt.Sprintf(`version: 1
targets:
  - name: tool
    kind: cli
    operations:
      - {name: create, mutating: true, args: [create, "{{marker}}"]}
    command: [%q]
%s`, r.command, dirLine)
			f, err := config.Parse("idemcheck.yaml", []byte(yml))
			require.NoError(t, err)
			err = f.CheckPrograms()
			if r.want == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), r.want)
		})
	}
}
