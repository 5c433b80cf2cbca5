package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/idemcheck/idemcheck/config"
	"github.com/idemcheck/idemcheck/config/section"
)

// fakesFromConfig runs the fakes a configuration declares, at their fixed
// addresses (a free port for those without one), and prints for each
// endpoint its address and the environment line to give a service
// started by hand.
func fakesFromConfig(ctx context.Context, path string, stdout io.Writer) error {
	reg := config.Builtin()
	f, err := reg.Load(path)
	if err != nil {
		return &exitError{code: exitUsage, err: err, hint: configHint}
	}
	if err := f.CheckFree(); err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	var set []configured
	for _, d := range reg.Fakes {
		if s, ok := f.Fakes[d.Name]; ok {
			set = append(set, configured{d, s})
		}
	}
	if len(set) == 0 {
		return usageErr("fakes: %s declares no fakes (fakes: %s)", path, fakeNames(reg))
	}
	running, stop, err := startFakes(ctx, set)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	defer stop()
	names := envNames(f)
	for _, r := range running {
		for i, e := range r.d.Endpoints {
			value := e.Value(r.f)
			fmt.Fprintf(stdout, "%-11s %-28s %s%s\n", endpointLabel(r.d, i), value, names.line(r.d.Name+"."+e.Placeholder, e.Env, value), control(r, i))
		}
	}
	fmt.Fprintln(stdout, controlNote)
	fmt.Fprintln(stdout, "press Ctrl-C to stop (stop it before idemcheck run, which starts these fakes itself)")
	<-ctx.Done()
	return nil
}

// envNamer knows which environment variable the configuration gives each
// fake's address to.
type envNamer map[string]string // placeholder (payments.url) → variable

// envNames reads the variables of the targets' environments whose value
// is exactly a fake's placeholder.
func envNames(f *config.File) envNamer {
	n := envNamer{}
	for _, t := range f.Targets {
		c, ok := t.(section.Commander)
		if !ok {
			continue
		}
		for _, cmd := range c.Commands() {
			keys := make([]string, 0, len(cmd.Env))
			for k := range cmd.Env {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				v := strings.TrimSpace(cmd.Env[k])
				if strings.HasPrefix(v, "{{fakes.") && strings.HasSuffix(v, "}}") {
					ph := strings.TrimSuffix(strings.TrimPrefix(v, "{{fakes."), "}}")
					if _, seen := n[ph]; !seen {
						n[ph] = k
					}
				}
			}
		}
	}
	return n
}

// line is the environment line for a fake's address: the configuration's
// variable for it, else a conventional one.
func (n envNamer) line(placeholder, fallback, value string) string {
	name := fallback
	if v, ok := n[placeholder]; ok {
		name = v
	}
	return name + "=" + value
}
