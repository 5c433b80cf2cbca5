package section

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/targets/process"
)

// Builder is what a target's Spec is built with: the fakes the file
// configures, and the file's directory and environment values, from
// which it resolves what the target's section writes.
//
// Relative file paths in a configuration are taken from the directory of
// the file, wherever idemcheck runs: a command's program given as a path
// (with a slash, such as ./server), a working directory, a container's
// binary and an sql observer's sqlite:PATH. A program given as a path is
// taken from the working directory when the target sets one. A path that
// starts with a placeholder ({{state_dir}}/db) is left as written; a
// command's arguments are the program's to read, from its working
// directory.
type Builder struct {
	base  string
	env   map[string]string
	fakes []harness.FakeStarter
	path  string

	problems []Problem
}

// NewBuilder returns the builder of the target at path: base is the
// directory relative paths are taken from ("" for the working
// directory), env the values of the {{env.NAME}} the file uses, fakes the
// fakes it configures.
func NewBuilder(base string, env map[string]string, fakes []harness.FakeStarter, path string) *Builder {
	return &Builder{base: base, env: env, fakes: fakes, path: path}
}

// Fakes returns the starters of the fakes the file configures, for the
// spec's Fakes.
func (b *Builder) Fakes() []harness.FakeStarter { return slices.Clone(b.fakes) }

// Errorf reports a problem found while building, at field of the target
// (such as "build.binary").
func (b *Builder) Errorf(field, format string, args ...any) {
	b.problems = append(b.problems, Problem{PathField(b.path, field), fmt.Sprintf(format, args...)})
}

// Problems returns what Errorf reported.
func (b *Builder) Problems() []Problem { return b.problems }

// File resolves a file path written in the configuration.
func (b *Builder) File(p string) string {
	if p == "" || b.base == "" || filepath.IsAbs(p) || strings.HasPrefix(p, "{{") {
		return p
	}
	return filepath.Join(b.base, p)
}

// Program resolves a command's program (command[0]) when it is a relative
// path: from dir, the already resolved working directory, when set, else
// from the file's directory. A name without a slash is looked up on PATH
// and stays as written. command is not modified.
func (b *Builder) Program(command []string, dir string) []string {
	return ResolveProgram(b.base, command, dir)
}

// ResolveProgram is Builder.Program for a file in the directory base.
func ResolveProgram(base string, command []string, dir string) []string {
	if len(command) == 0 || base == "" {
		return command
	}
	name := command[0]
	if !strings.Contains(name, "/") || filepath.IsAbs(name) || strings.HasPrefix(name, "{{") {
		return command
	}
	from := base
	if dir != "" {
		if strings.Contains(dir, "{{") {
			return command // known at run time; the adapter takes it from there
		}
		from = dir
	}
	out := slices.Clone(command)
	out[0] = filepath.Join(from, name)
	return out
}

// Env fills in the {{env.NAME}} placeholders of s.
func (b *Builder) Env(s string) string { return FillEnv(s, b.env) }

// EnvMap fills in the {{env.NAME}} placeholders of m's values, in a copy.
func (b *Builder) EnvMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, s := range m {
		out[k] = b.Env(s)
	}
	return out
}

// Command resolves a target's command, environment and working directory
// as a process runs them.
func (b *Builder) Command(command []string, env map[string]string, dir string) ([]string, map[string]string, string) {
	dir = b.File(dir)
	return b.Program(command, dir), b.EnvMap(env), dir
}

// Launch is how the harness starts the target's process as s says; nil
// for nil.
func (b *Builder) Launch(s *Start) *process.Launch {
	if s == nil {
		return nil
	}
	l := &process.Launch{ReadyPath: s.Ready.Path, ReadyTimeout: s.Ready.Timeout.Std()}
	l.Command, l.Env, l.Dir = b.Command(s.Command, s.Env, s.Dir)
	return l
}

// sqlitePrefix starts a SQLite dsn whose path is a file path.
const sqlitePrefix = "sqlite:"

// dsn resolves the file of a sqlite:PATH dsn.
func (b *Builder) dsn(d string) string {
	p, ok := strings.CutPrefix(d, sqlitePrefix)
	if !ok || strings.HasPrefix(p, ":") { // :memory:
		return d
	}
	return sqlitePrefix + b.File(p)
}

// RelativeNote says, for a message about the relative path p, where it
// was looked for.
func (b *Builder) RelativeNote(p string) string { return RelativeNote(p, b.base) }

// RelativeNote is Builder.RelativeNote for a file in the directory base.
func RelativeNote(p, base string) string {
	if p == "" || filepath.IsAbs(p) || base == "" {
		return ""
	}
	return " (a relative path is taken from the directory of the configuration file, " + base + ")"
}
