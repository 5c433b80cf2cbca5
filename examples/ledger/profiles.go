package ledger

import "github.com/idemcheck/idemcheck/examples/internal/refprofile"

// Profiles are the ways a transfer and its key are written, the correct
// one first.
var Profiles = []string{"correct", "no-fingerprint", "key-after-effect"}

// Info says what a profile is built to score, and why.
type Info = refprofile.Info

var infos = map[string]Info{
	"correct": {Score: 3},
	"no-fingerprint": {Score: 2, Flaw: "a reused key with another payload replays the first transfer",
		Failing: []string{"key.mismatch"}},
	"key-after-effect": {Score: 0, Flaw: "the key is written after the transfer commits, in a statement of its own: concurrent copies all transfer, and a crash between the two leaves a transfer the retry makes again",
		Failing: []string{"concurrent.duplicates"}},
}

// Describe returns what profile is built for.
func Describe(profile string) (Info, error) { return refprofile.Describe(Profiles, infos, profile) }
