package checks

import (
	"fmt"
	"strings"

	"github.com/idemcheck/idemcheck/record"
)

// tryFamily returns the probe a repeated try belongs to: "retry after
// client-disconnect" for "retry after client-disconnect (try 2 of 3)";
// ok is false for a probe that is no repeated try.
func tryFamily(name string) (string, bool) {
	i := strings.LastIndex(name, " (try ")
	if i < 0 || !strings.HasSuffix(name, ")") {
		return name, false
	}
	return name[:i], true
}

// mergeTries folds the findings of one check that the tries of one racy
// probe made (same operation, fault and severity) into one, which says in
// how many of the tries it happened and keeps up to three of them as
// evidence.
func mergeTries(rec *record.Record, fs []record.Finding) []record.Finding {
	families := map[string]bool{}
	for _, in := range rec.Intents {
		if fam, ok := tryFamily(in.Probe); ok {
			families[fam] = true
		}
	}
	if len(families) == 0 {
		return fs
	}
	// The tries of a family at an operation, and those a finding's
	// evidence came from: a try is a probe, whatever number of intents
	// it sends (4 distinct intents at once are one try).
	tries := map[string]map[string]bool{}
	for _, in := range rec.Intents {
		if fam, _ := tryFamily(in.Probe); families[fam] {
			k := fam + "\x00" + in.Operation
			if tries[k] == nil {
				tries[k] = map[string]bool{}
			}
			tries[k][in.Probe] = true
		}
	}
	var out []record.Finding
	at, seen := map[string]int{}, map[string]map[string]bool{}
	for _, f := range fs {
		fam := ""
		for _, in := range f.Evidence.Intents {
			if x, _ := tryFamily(in.Probe); families[x] {
				fam = x
			}
		}
		if fam == "" {
			out = append(out, f)
			continue
		}
		k := strings.Join([]string{fam, f.Operation, f.Check, f.Fault, f.Point, string(f.Severity)}, "\x00")
		if seen[k] == nil {
			seen[k] = map[string]bool{}
		}
		for _, in := range f.Evidence.Intents {
			if x, _ := tryFamily(in.Probe); x == fam {
				seen[k][in.Probe] = true
			}
		}
		if i, ok := at[k]; ok {
			if len(out[i].Evidence.Intents) < 3 {
				out[i].Evidence.Intents = append(out[i].Evidence.Intents, f.Evidence.Intents...)
				out[i].Evidence.Effects = append(out[i].Evidence.Effects, f.Evidence.Effects...)
			}
			continue
		}
		at[k] = len(out)
		out = append(out, f)
	}
	for k, i := range at {
		parts := strings.SplitN(k, "\x00", 3)
		out[i].Message += fmt.Sprintf(" (in %d of %d tries)", len(seen[k]), len(tries[parts[0]+"\x00"+parts[1]]))
	}
	return out
}
