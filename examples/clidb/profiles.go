package clidb

import "github.com/idemcheck/idemcheck/examples/internal/refprofile"

// Profiles are the ways an expense and its key are written, the correct
// one first.
var Profiles = []string{"correct", "check-then-insert", "error-after-insert"}

// Info says what a profile is built to score, and why.
type Info = refprofile.Info

var infos = map[string]Info{
	"correct": {Score: 3},
	"check-then-insert": {Score: 0, Flaw: "looks the key up, then inserts, with no unique constraint: calls that overlap all insert",
		Failing: []string{"concurrent.duplicates"}},
	"error-after-insert": {Score: 1, Flaw: "logs a new expense, then exits 1 saying it could not: the caller is told a failure that did not happen",
		Failing: []string{"reply.honest"}},
}

// Describe returns what profile is built for.
func Describe(profile string) (Info, error) { return refprofile.Describe(Profiles, infos, profile) }
