package ledger

import (
	"fmt"
	"strings"
)

// Profiles are the ways a transfer and its key are written, the correct
// one first.
var Profiles = []string{"correct", "no-fingerprint", "key-after-effect"}

// Info says what a profile is built to score, and why.
type Info struct {
	// Score is the rubric score it is built for, observed by a count with
	// its intents run one at a time.
	Score int
	// Flaw is its planted flaw, "" for the correct one.
	Flaw string
	// Failing are the checks its flaw makes fail.
	Failing []string
}

var infos = map[string]Info{
	"correct": {Score: 3},
	"no-fingerprint": {Score: 2, Flaw: "a reused key with another payload replays the first transfer",
		Failing: []string{"key.mismatch"}},
	"key-after-effect": {Score: 0, Flaw: "the key is written after the transfer commits, in a statement of its own: concurrent copies all transfer, and a crash between the two leaves a transfer the retry makes again",
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
