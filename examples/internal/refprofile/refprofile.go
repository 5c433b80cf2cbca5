package refprofile

import (
	"fmt"
	"strings"
)

// Info says what a profile is built to score, and why.
type Info struct {
	// Score is the rubric score it is built for.
	Score int
	// Flaw is its planted flaw, "" for a correct profile.
	Flaw string
	// Failing are the checks its flaw makes fail, sorted.
	Failing []string
	// Racy says the flaw is a race whose other victims vary from run to
	// run: Failing are the checks it always fails, and others may fail
	// besides.
	Racy bool
}

// Describe returns the Info of profile name, or an error that lists the
// profiles.
func Describe(names []string, infos map[string]Info, name string) (Info, error) {
	i, ok := infos[name]
	if !ok {
		return Info{}, fmt.Errorf("unknown profile %q: expected one of %s", name, strings.Join(names, ", "))
	}
	return i, nil
}
