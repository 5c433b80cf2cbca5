package config

import (
	"path/filepath"
	"slices"
	"strings"
)

// Relative file paths in a configuration are taken from the directory of
// the file, wherever idemcheck runs: a start or cli command's program
// given as a path (with a slash, such as ./server), a working directory
// (start.dir, dir), a container's build.binary and an sql observer's
// sqlite:PATH. A program given as a path is taken from the working
// directory when the target sets one. A path that starts with a
// placeholder ({{state_dir}}/db) is left as written; a command's
// arguments are the program's to read, from its working directory, which
// is still the one idemcheck runs in unless dir says otherwise.

// baseDir is the directory of the file called name, made absolute now, so
// that a later change of working directory does not move it.
func baseDir(name string) string {
	dir, err := filepath.Abs(filepath.Dir(name))
	if err != nil {
		return filepath.Dir(name)
	}
	return dir
}

// BaseDir returns the directory that relative paths in the file are taken
// from: the absolute directory of the file given to Load or Parse. It is
// "" for a File that was not parsed (built in Go), whose paths are taken
// from the working directory.
func (f *File) BaseDir() string { return f.base }

// path resolves a file path written in the configuration.
func (f *File) path(p string) string {
	if p == "" || f.base == "" || filepath.IsAbs(p) || strings.HasPrefix(p, "{{") {
		return p
	}
	return filepath.Join(f.base, p)
}

// program resolves a command's program (command[0]) when it is a relative
// path: from dir, the already resolved working directory, when set, else
// from the file's directory. A name without a slash is looked up on PATH
// and stays as written. command is not modified.
func (f *File) program(command []string, dir string) []string {
	if len(command) == 0 || f.base == "" {
		return command
	}
	name := command[0]
	if !strings.Contains(name, "/") || filepath.IsAbs(name) || strings.HasPrefix(name, "{{") {
		return command
	}
	from := f.base
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

// sqlitePrefix starts a SQLite dsn whose path is a file path.
const sqlitePrefix = "sqlite:"

// dsn resolves the file of a sqlite:PATH dsn.
func (f *File) dsn(d string) string {
	p, ok := strings.CutPrefix(d, sqlitePrefix)
	if !ok || strings.HasPrefix(p, ":") { // :memory:
		return d
	}
	return sqlitePrefix + f.path(p)
}

// resolved returns a copy of t as the harness runs it: relative paths
// taken from the file's directory, and {{env.NAME}} filled in. The File
// itself keeps what was written.
func (f *File) resolved(t Target) Target {
	t.URL = f.withEnv(t.URL)
	t.Dir = f.path(t.Dir)
	t.Command = f.program(t.Command, t.Dir)
	t.Env = f.withEnvMap(t.Env)
	if s := t.Start; s != nil {
		c := *s
		c.Dir = f.path(c.Dir)
		c.Command = f.program(c.Command, c.Dir)
		c.Env = f.withEnvMap(c.Env)
		t.Start = &c
	}
	if b := t.Build; b != nil {
		c := *b
		c.Binary = f.path(c.Binary)
		t.Build = &c
	}
	t.Operations = slices.Clone(t.Operations)
	for i := range t.Operations {
		t.Operations[i].Headers = f.withEnvMap(t.Operations[i].Headers)
	}
	t.Events = slices.Clone(t.Events)
	for i := range t.Events {
		t.Events[i].Headers = f.withEnvMap(t.Events[i].Headers)
	}
	t.Observe = slices.Clone(t.Observe)
	for i := range t.Observe {
		o := &t.Observe[i]
		if o.HTTP != nil {
			c := *o.HTTP
			c.Headers = f.withEnvMap(c.Headers)
			o.HTTP = &c
		}
		if o.SQL != nil {
			c := *o.SQL
			c.DSN = f.dsn(f.withEnv(c.DSN))
			o.SQL = &c
		}
	}
	return t
}

// relativeNote says, for a message about the relative path p, where it
// was looked for.
func relativeNote(p, base string) string {
	if p == "" || filepath.IsAbs(p) || base == "" {
		return ""
	}
	return " (a relative path is taken from the directory of the configuration file, " + base + ")"
}
