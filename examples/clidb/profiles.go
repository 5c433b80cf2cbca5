package clidb

import (
	"fmt"
	"strings"
)

// Profiles are the ways an expense and its key are written, the correct
// one first.
var Profiles = []string{"correct", "check-then-insert"}

// Info says what a profile is built to score, and why.
type Info struct {
	// Score is the rubric score it is built for.
	Score int
	// Flaw is its planted flaw, "" for the correct one.
	Flaw string
	// Failing are the checks its flaw makes fail.
	Failing []string
}

var infos = map[string]Info{
	"correct": {Score: 3},
	"check-then-insert": {Score: 0, Flaw: "looks the key up, then inserts, with no unique constraint: calls that overlap all insert",
		Failing: []string{"concurrent.duplicates"}},
}

// Describe returns what profile is built for.
func Describe(profile string) (Info, error) {
	i, ok := infos[profile]
	if !ok {
		return Info{}, fmt.Errorf("unknown profile %q: expected one of %s", profile, strings.Join(Profiles, ", "))
	}
	return i, nil
}
