package config

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/idemcheck/idemcheck/config/section"
)

// CheckPrograms checks, before anything runs, what Parse cannot check
// without looking at the machine: that the program of every start command
// and CLI command can be run, and that every working directory exists.
// Paths are taken as the run takes them (see BaseDir): a directory from
// the directory of the configuration file, a program with a slash from
// its target's directory, else from the file's, a program without one
// from PATH. Values with a placeholder are known only at run time and are
// not checked. The errors are Errors, located at the field.
func (f *File) CheckPrograms() error {
	var errs Errors
	for i, t := range f.Targets {
		c, ok := t.(section.Commander)
		if !ok {
			continue
		}
		for _, cmd := range c.Commands() {
			p := section.PathField(section.PathIndex("targets", i), cmd.Field)
			if cmd.Field == "" {
				p = section.PathIndex("targets", i)
			}
			errs = append(errs, f.checkProgram(p, cmd.Command, cmd.Dir)...)
		}
	}
	if len(errs) > 0 {
		errs.sort()
		return errs
	}
	return nil
}

// checkProgram checks the command and dir written at p.
func (f *File) checkProgram(p string, command []string, dir string) Errors {
	if dir != "" && !strings.Contains(dir, "{{") {
		st, err := os.Stat(f.file(dir))
		switch {
		case err != nil:
			return Errors{f.Errorf(section.PathField(p, "dir"), "the directory %q does not exist%s", dir, section.RelativeNote(dir, f.base))}
		case !st.IsDir():
			return Errors{f.Errorf(section.PathField(p, "dir"), "%q is not a directory", dir)}
		}
	}
	if len(command) == 0 || strings.Contains(command[0], "{{") || strings.Contains(dir, "{{") {
		return nil
	}
	name, at := command[0], section.PathIndex(section.PathField(p, "command"), 0)
	if !strings.Contains(name, "/") {
		if _, err := exec.LookPath(name); err != nil {
			return Errors{f.Errorf(at, "the program %q is not on PATH: install it, or give its path (with a slash, e.g. ./%s, taken from the directory of the configuration file)", name, name)}
		}
		return nil
	}
	path := section.ResolveProgram(f.base, command, f.file(dir))[0]
	where := ""
	if !filepath.IsAbs(name) {
		where = fmt.Sprintf(" (looked for at %s: a relative path is taken from the target's dir, else from the directory of the configuration file)", path)
	}
	st, err := os.Stat(path)
	switch {
	case err != nil:
		return Errors{f.Errorf(at, "the program %q does not exist%s", name, where)}
	case st.IsDir():
		return Errors{f.Errorf(at, "%q is a directory, not a program", name)}
	case st.Mode()&0o111 == 0:
		return Errors{f.Errorf(at, "the program %q is not executable (chmod +x it)", name)}
	}
	return nil
}

// file resolves a file path written in the configuration.
func (f *File) file(p string) string {
	return section.NewBuilder(f.base, nil, nil, "").File(p)
}
