package jsonstore

import "github.com/idemcheck/idemcheck/examples/internal/refprofile"

// Profiles are the ways the store is written, the correct one last.
var Profiles = []string{"rewrite", "locked"}

// Info says what a profile is built to score, and why.
type Info = refprofile.Info

var infos = map[string]Info{
	// Its lost writes land on whichever intents overlap: besides the split
	// replies of a burst, a lost or doubled intent (exactly-once,
	// retry.after-fault, retry.late, key.mismatch) makes its 0.
	"rewrite": {Score: 0, Flaw: "load, modify and save the whole file with no lock: of two overlapping writes the second loses the first's record, and same-key copies each add one, of which one survives",
		Failing: []string{"concurrent.distinct", "concurrent.duplicates"}, Racy: true},
	"locked": {Score: 3},
}

// Describe returns what profile is built for.
func Describe(profile string) (Info, error) { return refprofile.Describe(Profiles, infos, profile) }
