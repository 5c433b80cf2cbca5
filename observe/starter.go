package observe

import (
	"context"
	"fmt"

	"github.com/idemcheck/idemcheck/harness"
)

// vars are the placeholders a source's DSN or URL may use once the target
// has started: {{state_dir}}, and {{marker}} kept for each intent.
func vars(env *harness.Env) map[string]string {
	return map[string]string{"state_dir": env.StateDir, "marker": "{{marker}}"}
}

// SQLStarter returns a harness.ObserverStarter that opens s for each run
// of a target; s.DSN may use {{state_dir}} (a SQLite file the target keeps
// there).
func SQLStarter(s SQL) harness.ObserverStarter {
	return func(ctx context.Context, env *harness.Env, _ harness.Target) (harness.EffectObserver, error) {
		dsn, err := harness.Expand(s.DSN, vars(env))
		if err != nil {
			return nil, fmt.Errorf("observer %s: dsn: %w", s.Name, err)
		}
		s.DSN = dsn
		return OpenSQL(ctx, s)
	}
}

// HTTPStarter returns a harness.ObserverStarter that reads back through
// the started target's URL (a target with a BaseURL() string method) when
// h.URL is a path.
func HTTPStarter(h HTTP) harness.ObserverStarter {
	return func(ctx context.Context, env *harness.Env, t harness.Target) (harness.EffectObserver, error) {
		u, err := harness.Expand(h.URL, vars(env))
		if err != nil {
			return nil, fmt.Errorf("observer %s: url: %w", h.Name, err)
		}
		h.URL = u
		base := ""
		if b, ok := t.(interface{ BaseURL() string }); ok {
			base = b.BaseURL()
		}
		if l, ok := t.(interface {
			Take(ctx context.Context, n int) error
		}); ok && h.Limit == nil {
			h.Limit = l.Take
		}
		return OpenHTTP(base, h)
	}
}
