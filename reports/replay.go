package reports

import (
	"fmt"
	"slices"
	"strings"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/record"
)

// RunCommand returns the command that repeats the run with its seed (from
// res.Meta), or "" when the run was not made by the idemcheck command. A
// sharded run is repeated whole: the shards of a seed make exactly the
// intents of the unsharded run.
func RunCommand(res *record.Result) string {
	switch {
	case res.Meta.Command == "demo":
		return fmt.Sprintf("idemcheck demo --seed %d", res.Seed)
	case res.Meta.Config != "":
		return fmt.Sprintf("idemcheck run -c %s --seed %d", ShellQuote(res.Meta.Config), res.Seed)
	}
	return ""
}

// ReplayCommand returns the command that replays f: the run's command,
// with the seed, restricted (--only) to f's check and to the checks whose
// probes made its evidence, or "" when the run was not made by the
// idemcheck command. effect.field's finding on an intent a fault's probe
// made is replayed with that fault's check too: effect.field's own
// probes would not make that intent. Of a run of several targets, or of
// a run restricted to some (--target), it runs the finding's alone. The demo has no --only: its replay
// is the whole demo.
func ReplayCommand(res *record.Result, f record.Finding) string {
	cmd := RunCommand(res)
	if cmd == "" || res.Meta.Command == "demo" {
		return cmd
	}
	cmd += " --only " + ShellQuote(strings.Join(replayChecks(f), ","))
	if t := ownerOf(res, f); t != "" && (len(res.Targets) > 1 || len(res.Meta.Targets) > 0) {
		// Of a run of several targets, or of some of the file's
		// (--target), the one the finding is about.
		cmd += " --target " + ShellQuote(t)
	}
	return cmd
}

// ownerOf names the target of res that has the finding f, or "".
func ownerOf(res *record.Result, f record.Finding) string {
	for _, t := range res.Targets {
		for _, g := range t.Findings {
			if g.Check == f.Check && g.Operation == f.Operation && g.Fault == f.Fault && g.Message == f.Message {
				return t.Name
			}
		}
	}
	return ""
}

// replayChecks are f's check, then, for each intent of its evidence that
// a probe of other checks made, the first of those checks, unless one of
// them is named already; and retry.sequential when a fault was armed at
// a later downstream call of an operation, whose points only a clean run
// of it (retry.sequential's probes make one) shows.
func replayChecks(f record.Finding) []string {
	only := []string{f.Check}
	later := false
	for _, in := range f.Evidence.Intents {
		for _, a := range in.Attempts {
			later = later || a.Point != nil && a.Point.Index > 1
		}
		if len(in.PlannedFor) == 0 || slices.ContainsFunc(in.PlannedFor, func(id string) bool { return slices.Contains(only, id) }) {
			continue
		}
		only = append(only, in.PlannedFor[0])
	}
	if later && !slices.Contains(only, checks.CheckRetrySequential) {
		only = append(only, checks.CheckRetrySequential)
	}
	return only
}

// ShellQuote quotes s for a POSIX shell when it needs it: a word of
// letters, digits and -_./:=@%+, is left as it is, anything else is put
// in single quotes, so that a path with spaces in a printed command runs.
func ShellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@%+,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
