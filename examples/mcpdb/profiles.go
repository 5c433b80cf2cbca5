package mcpdb

import "github.com/idemcheck/idemcheck/examples/internal/refprofile"

// Profiles are the ways the server keeps its keys, the correct one first.
var Profiles = []string{"correct", "session-keys"}

// Info says what a profile is built to score, and why.
type Info = refprofile.Info

var infos = map[string]Info{
	"correct": {Score: 3},
	"session-keys": {Score: 0, Flaw: "keeps the keys it has seen (not the payloads) in the server process's memory: a retry on a new session, a new process over stdio, makes the task again",
		Failing: []string{"concurrent.duplicates", "crash.recovery", "key.mismatch", "retry.after-fault"}},
}

// Describe returns what profile is built for.
func Describe(profile string) (Info, error) { return refprofile.Describe(Profiles, infos, profile) }
