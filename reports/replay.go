package reports

import (
	"fmt"
	"strings"

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
// with the seed, restricted to f's check (--only), or "" when the run was
// not made by the idemcheck command. The demo has no --only: its replay is
// the whole demo.
func ReplayCommand(res *record.Result, f record.Finding) string {
	cmd := RunCommand(res)
	if cmd == "" || res.Meta.Command == "demo" {
		return cmd
	}
	return cmd + " --only " + ShellQuote(f.Check)
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
