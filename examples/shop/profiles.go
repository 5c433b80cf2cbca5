package shop

import (
	"fmt"
	"slices"
	"strings"
)

// ProfileInfo says what a profile is built to show, so that a harness test
// or the demo can put the designed score next to the measured one.
type ProfileInfo struct {
	// Name is the value of --profile.
	Name string
	// Score is the rubric level (0–3) the profile is built to get.
	Score int
	// Seed names the seed document the pattern comes from.
	Seed string
	// Flaw is the one planted flaw, in a sentence; "" for correct.
	Flaw string
}

// profile is a ProfileInfo plus how the shop is assembled for it. Only the
// guard differs between most profiles; the two presentation switches
// (effect field, dry-run) are the rubric's own dimensions.
type profile struct {
	ProfileInfo
	newGuard func(ids *sequence) guard
	// effects says whether replies carry the effect field.
	effects bool
	// dryRun says whether dry_run=true is honoured; otherwise it is ignored
	// and the request executes.
	dryRun bool
	// verifyOnRead makes GET /orders charge a customer it sees first.
	verifyOnRead bool
}

func atomicOnly(*sequence) guard { return newAtomicGuard() }

var registry = []profile{
	{
		ProfileInfo: ProfileInfo{Name: "correct", Score: 3, Seed: "001"},
		newGuard:    atomicOnly, effects: true, dryRun: true,
	},
	{
		ProfileInfo: ProfileInfo{Name: "nokey", Score: 0, Seed: "001",
			Flaw: "ignores Idempotency-Key: every retry charges again; no effect field, no dry-run"},
		newGuard: func(*sequence) guard { return noGuard{} },
	},
	{
		ProfileInfo: ProfileInfo{Name: "noeffect", Score: 1, Seed: "001",
			Flaw: "replies never carry the effect field, so a client cannot tell a replay from a first run"},
		newGuard: atomicOnly, dryRun: true,
	},
	{
		ProfileInfo: ProfileInfo{Name: "nodryrun", Score: 2, Seed: "001",
			Flaw: "keys are optional (a keyless POST executes unguarded) and dry_run is ignored"},
		newGuard: func(*sequence) guard { return optionalKeyGuard{newAtomicGuard()} },
		effects:  true,
	},
	{
		ProfileInfo: ProfileInfo{Name: "mismatch", Score: 2, Seed: "000",
			Flaw: "no payload fingerprint: a key reused with another payload replays the first result instead of 422"},
		newGuard: func(*sequence) guard { return blindGuard{newAtomicGuard()} },
		effects:  true, dryRun: true,
	},
	{
		ProfileInfo: ProfileInfo{Name: "payload-dedup", Score: 0, Seed: "002 option 1",
			Flaw: "keys derive from customer and amount/plan, not the client's key: distinct intents with equal inputs merge into one charge"},
		newGuard: func(*sequence) guard { return derivedKeyGuard{newAtomicGuard()} },
		effects:  true, dryRun: true,
	},
	{
		ProfileInfo: ProfileInfo{Name: "unstable-replay", Score: 1, Seed: "000",
			Flaw: "the store remembers that a key was done, not the reply: a replay returns a fresh id"},
		newGuard: func(ids *sequence) guard { return forgetfulGuard{inner: newAtomicGuard(), ids: ids} },
		effects:  true, dryRun: true,
	},
	{
		ProfileInfo: ProfileInfo{Name: "mark-first", Score: 0, Seed: "000, 002 option 5",
			Flaw: "marks the key complete before charging: after a failed charge a retry replays a success that never happened"},
		newGuard: func(*sequence) guard { return earlyMarkGuard{newAtomicGuard()} },
		effects:  true, dryRun: true,
	},
	{
		ProfileInfo: ProfileInfo{Name: "read-side-effect", Score: 0, Seed: "001",
			Flaw: "the safe GET /orders charges a card verification the first time it sees a customer"},
		newGuard: atomicOnly, effects: true, dryRun: true, verifyOnRead: true,
	},
}

// Profiles lists the profile names, sorted.
var Profiles = func() []string {
	names := make([]string, 0, len(registry))
	for _, p := range registry {
		names = append(names, p.Name)
	}
	slices.Sort(names)
	return names
}()

// Describe returns what the named profile is built to show.
func Describe(name string) (ProfileInfo, bool) {
	p, err := lookup(name)
	return p.ProfileInfo, err == nil
}

func lookup(name string) (profile, error) {
	for _, p := range registry {
		if p.Name == name {
			return p, nil
		}
	}
	if name == "" {
		return profile{}, fmt.Errorf("a profile is required; profiles: %s", strings.Join(Profiles, ", "))
	}
	return profile{}, fmt.Errorf("unknown profile %q; profiles: %s", name, strings.Join(Profiles, ", "))
}
