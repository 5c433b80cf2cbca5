package config

import (
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/observe"
)

// observers turns a target's observe: section into what
// harness.Spec.Observers takes.
func observers(obs []Observer) []harness.ObserverStarter {
	var out []harness.ObserverStarter
	for _, o := range obs {
		settle := observe.Settle{Quiet: o.Settle.Quiet.Std(), Within: o.Settle.Within.Std(), Interval: o.Settle.Interval.Std()}
		switch {
		case o.HTTP != nil:
			out = append(out, observe.HTTPStarter(observe.HTTP{Name: o.Name, Kind: o.Kind, URL: o.HTTP.Path, Method: o.HTTP.Method,
				Headers: o.HTTP.Headers, Items: o.HTTP.Items, ID: o.HTTP.ID, Settle: settle}))
		case o.SQL != nil:
			out = append(out, observe.SQLStarter(observe.SQL{Name: o.Name, Kind: o.Kind, DSN: o.SQL.DSN, Query: o.SQL.Query, Settle: settle}))
		}
	}
	return out
}
