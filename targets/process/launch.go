package process

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Launch says how to start the server process of a target that idemcheck
// starts itself, as a configuration writes it: Command, the values of Env
// and Dir may use placeholders ({{port}}, {{state_dir}},
// {{fakes.NAME.url}}, …), filled in by an Expander at each start. Every
// adapter that starts a server (http, webhook, a streamable HTTP mcp
// server) takes this one type.
type Launch struct {
	Command []string
	Env     map[string]string
	Dir     string
	// ReadyPath is fetched under the target's URL until it answers 2xx
	// (default "/").
	ReadyPath string
	// ReadyTimeout bounds the wait for readiness (default
	// DefaultReadyTimeout).
	ReadyTimeout time.Duration
	// Replicas is how many instances of the process an adapter that can
	// run several starts (0 or 1 for one): each on a port of its own, all
	// with the same state directory, environment and fakes.
	Replicas int
}

// Expander fills in the placeholders of one string, failing on one it
// does not know; an adapter makes it from harness.Expand and the start's
// values.
type Expander func(s string) (string, error)

// RunIDVar is the environment variable that carries the run's id into
// every process a run starts, so that its leftovers can be found.
const RunIDVar = "IDEMCHECK_RUN_ID"

// Spec expands l into the Spec of one start: name names it in messages,
// base is the target's expanded URL that ReadyPath is fetched under, and
// runID, when set, is passed on as RunIDVar.
func (l Launch) Spec(name, base, runID string, expand Expander) (Spec, error) {
	spec := Spec{Name: name, Ready: Ready{Timeout: l.ReadyTimeout}}
	var err error
	if spec.Command, err = ExpandArgs("start command", l.Command, expand); err != nil {
		return Spec{}, err
	}
	if spec.Dir, err = expandOne("start dir", l.Dir, expand); err != nil {
		return Spec{}, err
	}
	env, err := ExpandMap("start env", l.Env, expand)
	if err != nil {
		return Spec{}, err
	}
	spec.Env = EnvList(env, runID)
	ready := l.ReadyPath
	if ready == "" {
		ready = "/"
	}
	spec.Ready.URL = strings.TrimSuffix(base, "/") + ready
	return spec, nil
}

// ExpandArgs expands each of args; what names the list in an error, such
// as "command". No args give nil.
func ExpandArgs(what string, args []string, expand Expander) ([]string, error) {
	var out []string
	for _, a := range args {
		x, err := expandOne(what, a, expand)
		if err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, nil
}

// ExpandMap expands the values of env, in the order of their names so
// that the first error is always the same one; what names the map in an
// error, such as "env". A nil map gives an empty one.
func ExpandMap(what string, env map[string]string, expand Expander) (map[string]string, error) {
	out := make(map[string]string, len(env)+1)
	for _, k := range sortedNames(env) {
		x, err := expandOne(what+" "+k, env[k], expand)
		if err != nil {
			return nil, err
		}
		out[k] = x
	}
	return out, nil
}

// EnvList returns env as "K=V" entries sorted by name, with RunIDVar
// last when runID is set.
func EnvList(env map[string]string, runID string) []string {
	out := make([]string, 0, len(env)+1)
	for _, k := range sortedNames(env) {
		out = append(out, k+"="+env[k])
	}
	if runID != "" {
		out = append(out, RunIDVar+"="+runID)
	}
	return out
}

// Mentions says whether any of ss uses the placeholder {{name}}.
func Mentions(name string, ss ...string) bool {
	for _, s := range ss {
		for rest := s; ; {
			i := strings.Index(rest, "{{")
			if i < 0 {
				break
			}
			j := strings.Index(rest[i:], "}}")
			if j < 0 {
				break
			}
			if strings.TrimSpace(rest[i+2:i+j]) == name {
				return true
			}
			rest = rest[i+j+2:]
		}
	}
	return false
}

func expandOne(what, s string, expand Expander) (string, error) {
	x, err := expand(s)
	if err != nil {
		return "", fmt.Errorf("%s: %w", what, err)
	}
	return x, nil
}

func sortedNames(m map[string]string) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}
