package jsonstore

import (
	"fmt"
	"strings"
)

// Profiles are the ways the store is written, the correct one last.
var Profiles = []string{"rewrite", "locked"}

// Info says what a profile is built to score, and why.
type Info struct {
	// Score is the rubric score it is built for.
	Score int
	// Flaw is its planted flaw, "" for the correct one.
	Flaw string
	// Failing are the checks its flaw always makes fail; which others a
	// lost write fails besides (exactly-once, retry.late,
	// retry.after-fault, key.mismatch) depends on which writes overlap.
	Failing []string
}

var infos = map[string]Info{
	"rewrite": {Score: 0, Flaw: "load, modify and save the whole file with no lock: of two overlapping writes the second loses the first's record, and same-key copies both add one",
		Failing: []string{"concurrent.duplicates"}},
	"locked": {Score: 3},
}

// Describe returns what profile is built for.
func Describe(profile string) (Info, error) {
	i, ok := infos[profile]
	if !ok {
		return Info{}, fmt.Errorf("unknown profile %q: expected one of %s", profile, strings.Join(Profiles, ", "))
	}
	return i, nil
}
