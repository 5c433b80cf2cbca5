package process

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// Program is a command a target runs as it is called, rather than a
// server started once: a CLI tool, once per call; an MCP server over
// stdio, once per session. Command, the values of Env and Dir may use
// placeholders, filled in by Expand when the target starts.
type Program struct {
	Command []string
	Env     map[string]string
	Dir     string
}

// Mentions says whether the program uses the placeholder {{name}}.
func (p Program) Mentions(name string) bool {
	ss := append([]string{p.Dir}, p.Command...)
	for _, v := range p.Env {
		ss = append(ss, v)
	}
	return Mentions(name, ss...)
}

// Expand returns p with its placeholders filled in by expand, and runID,
// when set, in its environment as RunIDVar.
func (p Program) Expand(expand Expander, runID string) (Program, error) {
	var out Program
	var err error
	if out.Command, err = ExpandArgs("command", p.Command, expand); err != nil {
		return Program{}, err
	}
	if out.Dir, err = expandOne("dir", p.Dir, expand); err != nil {
		return Program{}, err
	}
	if out.Env, err = ExpandMap("env", p.Env, expand); err != nil {
		return Program{}, err
	}
	if runID != "" {
		out.Env[RunIDVar] = runID
	}
	return out, nil
}

// AddPort sets vars["port"], the placeholder {{port}}, to a free
// loopback port.
func AddPort(vars map[string]string) error {
	port, err := FreePort()
	if err != nil {
		return err
	}
	vars["port"] = strconv.Itoa(port)
	return nil
}

// Resolve finds a program the way exec.Cmd will run it: a name without a
// slash on idemcheck's PATH, a relative path under dir. It returns what
// to give exec.Cmd: the path found on PATH, or name as written (exec.Cmd
// takes a relative one from Dir itself).
func Resolve(name, dir string) (string, error) {
	if !strings.Contains(name, "/") {
		p, err := exec.LookPath(name)
		if err != nil {
			return "", fmt.Errorf("command %q: not found on PATH: install it, or give its path (with a slash, e.g. ./%s)", name, name)
		}
		return p, nil
	}
	p := name
	if !filepath.IsAbs(p) && dir != "" {
		p = filepath.Join(dir, p)
	}
	st, err := os.Stat(p)
	switch {
	case err != nil:
		return "", fmt.Errorf("command %q: %v (a relative path is taken from the target's dir, else from the directory of the configuration file)", name, errors.Unwrap(err))
	case st.IsDir():
		return "", fmt.Errorf("command %q is a directory, not an executable", name)
	case st.Mode()&0o111 == 0:
		return "", fmt.Errorf("command %q is not executable (chmod +x it)", name)
	}
	return name, nil
}
