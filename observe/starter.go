package observe

import (
	"github.com/idemcheck/idemcheck/harness"
)

// SQLStarter returns a harness.ObserverStarter that opens s for each run
// of a target: the Spec made of s's Name, Kind and Settle, with s as its
// source. s.DSN may use {{state_dir}} (a SQLite file the target keeps
// there) and {{env.NAME}}.
func SQLStarter(s SQL) harness.ObserverStarter {
	return Spec{Name: s.Name, Kind: s.Kind, Settle: s.Settle, Source: s}.Starter()
}

// HTTPStarter returns a harness.ObserverStarter that reads back through
// the started target's URL (a target with a BaseURL() string method) when
// h.URL is a path, and counts against its request budget.
func HTTPStarter(h HTTP) harness.ObserverStarter {
	return Spec{Name: h.Name, Kind: h.Kind, Settle: h.Settle, Source: h}.Starter()
}
