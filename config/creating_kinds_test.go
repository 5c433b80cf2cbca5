package config_test

import (
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/token"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/config"
	"github.com/idemcheck/idemcheck/config/schema"
	"github.com/idemcheck/idemcheck/config/section"
	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/harness"
	httptarget "github.com/idemcheck/idemcheck/targets/http"
	"github.com/idemcheck/idemcheck/targets/http/httpconfig"
)

// This file is the worked example of targets/CREATING_KINDS.md: a kind of
// target made the way the guide says, registered in a Registry of the
// test's own, then parsed, refused, built into a spec and run. The kind,
// "ledger", is a handler served in-process that records one charge per
// idempotency key; it has one field of its own, careless, which makes it
// forget the keys.

// ledgerKind is step 3 of the guide: the descriptor.
var ledgerKind = section.Kind{
	Name: "ledger",
	Doc:  "a payments handler served in-process (a test's own kind)",
	New:  func() section.Target { return &ledgerSection{} },
	Hints: map[string]string{
		"command": "a ledger target runs in-process; it has no command",
	},
}

// ledgerSection is step 1: the kind's struct, Common embedded inline.
type ledgerSection struct {
	section.Common `yaml:",inline"`
	// Careless makes the handler forget the keys it saw.
	Careless bool `yaml:"careless,omitempty"`
	// Operations are the requests the harness sends.
	Operations []section.Operation `yaml:"operations"`
}

// Rules is step 2: what the schema says beyond the Go types.
func (ledgerSection) Rules(r *schema.Rules) {
	r.Field("operations").Required("list the ledger's operations, with their name, mutating, method and path")
}

// Check, Defaults and Spec are step 2 too: what the schema cannot say,
// the defaults, and the spec.
func (s *ledgerSection) Check(c *section.Checker) {
	s.Common.Check(c, s)
	ops := c.Field("operations")
	names := make([]string, len(s.Operations))
	for i := range s.Operations {
		s.Operations[i].Check(ops.Index(i))
		names[i] = s.Operations[i].Name
	}
	ops.Unique("operation", "name", names, " within a target")
}

func (s *ledgerSection) Defaults() {
	s.Common.Defaults()
	for i := range s.Operations {
		s.Operations[i].Defaults()
	}
}

func (s *ledgerSection) Spec(b *section.Builder) harness.Spec {
	cfg := httptarget.Config{Name: s.Name, Identity: *httpconfig.ConfigLocator(&s.Identity), Timeout: s.Timeout.Std()}
	for _, op := range s.Operations {
		cfg.Operations = append(cfg.Operations, httptarget.Operation{
			Name: op.Name, Mutating: op.Mutating != nil && *op.Mutating, Method: op.Method, Path: op.Path, Body: op.Body,
		})
	}
	spec := httptarget.HandlerSpec(cfg, func(env *harness.Env) http.Handler { return newLedger(env, s.Careless) }, b.Fakes()...)
	spec.Kind = ledgerKind.Name
	return spec
}

// newLedger charges the payments fake once per idempotency key (or once
// per request, when careless), passing the marker on.
func newLedger(env *harness.Env, careless bool) http.Handler {
	var mu sync.Mutex
	seen := map[string]string{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		key := r.Header.Get("Idempotency-Key")
		mu.Lock()
		defer mu.Unlock()
		if id, ok := seen[key]; ok && key != "" && !careless {
			_ = json.NewEncoder(w).Encode(map[string]any{"effect": "noop", "data": map[string]string{"id": id}})
			return
		}
		form := strings.NewReader("amount=100&currency=usd&description=" + fakes.FindMarkers(body)[0])
		req, _ := http.NewRequestWithContext(r.Context(), http.MethodPost, env.Fakes["payments"].URL()+"/v1/charges", form)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		resp.Body.Close()
		id := fmt.Sprintf("ch_%d", len(seen)+1)
		seen[key] = id
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(map[string]any{"effect": "created", "data": map[string]string{"id": id}})
	})
}

// ledgerRegistry is step 4: the registry line (here a test's own
// registry, for config.Builtin's is idemcheck's).
func ledgerRegistry() *config.Registry {
	reg := config.Builtin()
	reg.Kinds = append(reg.Kinds, ledgerKind)
	return reg
}

const ledgerYAML = `version: 1
fakes: {payments: {}}
checks: {only: [retry.sequential]}
faults: []
targets:
  - name: charges
    kind: ledger
    careless: CARELESS
    operations:
      - {name: charge, mutating: true, method: POST, path: /charges, body: '{"memo":"{{marker}}"}'}
`

func TestCreatingKindsExample(t *testing.T) {
	reg := ledgerRegistry()

	t.Run("parsed into the kind's struct, with the common defaults", func(t *testing.T) {
		f, err := reg.Parse("ledger.yaml", []byte(strings.Replace(ledgerYAML, "CARELESS", "true", 1)))
		require.NoError(t, err)
		s := sectionAt[*ledgerSection](t, f, 0)
		assert.True(t, s.Careless)
		assert.Equal(t, config.DefaultTimeout, s.Timeout.Std(), "Common's defaults")
	})

	t.Run("refused by the schema and the checks, in the usual words", func(t *testing.T) {
		for _, tc := range []struct{ why, from, to, want string }{
			{"a field of its own, checked by type", "careless: CARELESS", "careless: maybe",
				`ledger.yaml:8:15: targets[0].careless: expected a boolean (true or false), got string "maybe"`},
			{"a required field, with the kind's hint", "    operations:\n      - {name: charge, mutating: true, method: POST, path: /charges, body: '{\"memo\":\"{{marker}}\"}'}\n", "",
				"ledger.yaml:6:5: targets[0].operations: missing: list the ledger's operations"},
			{"a typo, with the kind's own fields", "careless: CARELESS", "carless: true",
				`targets[0].carless: unknown field "carless" (did you mean "careless"? known fields: name, kind, key_format, timeout, identity, fresh_trials, trial_workers, observe, dependencies, careless, operations)`},
			{"another kind's field, with the kind's hint", "careless: CARELESS", "command: [./x]",
				"targets[0].command: command is for cli and mcp targets; this is a ledger target (see kind); a ledger target runs in-process; it has no command"},
			{"its own checks, by hand", `'{"memo":"{{marker}}"}'`, `'{"memo":"x"}'`,
				`targets[0].operations[0]: mutating operation "charge" does not use {{marker}}`},
			{"and a ledger field on another kind names the kind", "kind: ledger\n    careless: CARELESS", "kind: http\n    url: http://127.0.0.1:1\n    careless: true",
				"targets[0].careless: careless is for a ledger target; this is an http target (see kind)"},
		} {
			t.Run(tc.why, func(t *testing.T) {
				_, err := reg.Parse("ledger.yaml", []byte(strings.Replace(strings.Replace(ledgerYAML, tc.from, tc.to, 1), "CARELESS", "false", 1)))
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.want)
			})
		}
	})

	t.Run("built into a spec and run: a careful ledger scores, a careless one is caught", func(t *testing.T) {
		for _, careless := range []bool{false, true} {
			f, err := reg.Parse("ledger.yaml", []byte(strings.Replace(ledgerYAML, "CARELESS", fmt.Sprint(careless), 1)))
			require.NoError(t, err)
			specs, opts, err := f.Specs()
			require.NoError(t, err)
			require.Len(t, specs, 1)
			assert.Equal(t, "ledger", specs[0].Kind)
			ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
			res, err := harness.Verify(ctx, specs, append(opts, harness.WithSeed(1))...)
			cancel()
			require.NoError(t, err)
			tr := res.Targets[0]
			require.Empty(t, tr.Error)
			var failed []string
			for _, c := range tr.Checks {
				if c.Status == harness.StatusFail {
					failed = append(failed, c.ID)
				}
			}
			if careless {
				assert.Contains(t, failed, "retry.sequential", "a ledger that forgets its keys charges twice")
			} else {
				assert.Empty(t, failed, "a ledger that keeps its keys")
			}
		}
	})

	t.Run("without the registry line, the kind is unknown", func(t *testing.T) {
		_, err := config.Parse("ledger.yaml", []byte(strings.Replace(ledgerYAML, "CARELESS", "false", 1)))
		require.Error(t, err)
		assert.Contains(t, err.Error(), `targets[0].kind: unsupported kind "ledger" (supported kinds: http, cli, webhook, container, mcp, consumer)`)
	})
}

// TestEveryKindIsRegistered: a targets/* package that declares a
// ConfigKind (step 3 of targets/CREATING_KINDS.md) has its line in
// config.Builtin (step 4).
func TestEveryKindIsRegistered(t *testing.T) {
	declared := declaredVars(t, "../targets", "ConfigKind")
	require.NotEmpty(t, declared)
	var registered []string
	for _, k := range config.Builtin().Kinds {
		registered = append(registered, k.Name)
	}
	for pkg, count := range declared {
		assert.Equal(t, 1, count, "targets/%s declares its ConfigKind once", pkg)
	}
	assert.Len(t, registered, len(declared), "config.Builtin lists every targets/* package's ConfigKind (declared in %v, registered %v)", keys(declared), registered)
}

// TestAKindWithoutSpecDoesNotCompile: a kind's struct that lacks a method
// of section.Target is refused by the compiler where its Kind says New.
func TestAKindWithoutSpecDoesNotCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the compiler")
	}
	dir, err := os.MkdirTemp(".", "kindcheck")
	require.NoError(t, err)
	defer os.RemoveAll(dir)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "kind.go"), []byte(`package kindcheck

import "github.com/idemcheck/idemcheck/config/section"

type half struct {
	section.Common `+"`yaml:\",inline\"`"+`
}

func (h *half) Check(c *section.Checker) {}
func (h *half) Defaults()                 {}

var Kind = section.Kind{Name: "half", New: func() section.Target { return &half{} }}
`), 0o644))
	out, err := exec.Command("go", "build", "./"+dir).CombinedOutput()
	require.Error(t, err, "a kind without Spec must not compile")
	assert.Contains(t, string(out), "missing method Spec")
}

// declaredVars counts, by package directory under root, the package-level
// variables called name.
func declaredVars(t *testing.T, root, name string) map[string]int {
	t.Helper()
	out := map[string]int{}
	dirs, err := os.ReadDir(root)
	require.NoError(t, err)
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		// The package and the ones beside it (targets/http/httpconfig).
		pkgs := []string{filepath.Join(root, d.Name())}
		subs, err := os.ReadDir(pkgs[0])
		require.NoError(t, err)
		for _, sub := range subs {
			if sub.IsDir() && sub.Name() != "testdata" && sub.Name() != "internal" {
				pkgs = append(pkgs, filepath.Join(pkgs[0], sub.Name()))
			}
		}
		for _, pkg := range pkgs {
			for _, f := range parseSources(t, pkg, 0) {
				for _, decl := range f.Decls {
					if gd, ok := decl.(*ast.GenDecl); ok && gd.Tok == token.VAR {
						for _, s := range gd.Specs {
							if slices.ContainsFunc(s.(*ast.ValueSpec).Names, func(n *ast.Ident) bool { return n.Name == name }) {
								out[d.Name()]++
							}
						}
					}
				}
			}
		}
	}
	return out
}

func keys(m map[string]int) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
