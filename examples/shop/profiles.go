package shop

import (
	"fmt"
	"slices"
	"strings"
	"time"
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
	newGuard func(d guardDeps) guard
	// durable says whether the guard keeps its key store in --state (when
	// one is given); the others keep nothing across restarts.
	durable bool
	// newCharger wraps the payments client with a flaw; nil charges
	// faithfully.
	newCharger func(pay *paymentsClient) charger
	// effects says whether replies carry the effect field.
	effects bool
	// dryRun says whether dry_run=true is honoured; otherwise it is ignored
	// and the request executes.
	dryRun bool
	// verifyOnRead makes GET /orders charge a customer it sees first.
	verifyOnRead bool
}

// guardDeps is what a guard is built from.
type guardDeps struct {
	ids *sequence
	// journal is the durable key store, nil when the shop runs without
	// --state or the profile is not durable.
	journal *journal
	// boot identifies this start of the process.
	boot string
	// window is the check-then-act profile's gap (--window).
	window time.Duration
}

// atomicStore is the correct guard on the durable store: the base every
// profile "as correct" wraps with its flaw.
func atomicStore(d guardDeps) *atomicGuard { return newAtomicGuard(d.journal, d.boot) }

func atomicOnly(d guardDeps) guard { return atomicStore(d) }

var registry = []profile{
	{
		ProfileInfo: ProfileInfo{Name: "correct", Score: 3, Seed: "001"},
		newGuard:    atomicOnly, durable: true, effects: true, dryRun: true,
	},
	{
		ProfileInfo: ProfileInfo{Name: "nokey", Score: 0, Seed: "001",
			Flaw: "ignores Idempotency-Key: every retry charges again; no effect field, no dry-run"},
		newGuard: func(guardDeps) guard { return noGuard{} },
	},
	{
		ProfileInfo: ProfileInfo{Name: "noeffect", Score: 1, Seed: "001",
			Flaw: "replies never carry the effect field, so a client cannot tell a replay from a first run"},
		newGuard: atomicOnly, durable: true, dryRun: true,
	},
	{
		ProfileInfo: ProfileInfo{Name: "nodryrun", Score: 2, Seed: "001",
			Flaw: "keys are optional (a keyless POST executes unguarded) and dry_run is ignored"},
		newGuard: func(d guardDeps) guard { return optionalKeyGuard{atomicStore(d)} },
		durable:  true, effects: true,
	},
	{
		ProfileInfo: ProfileInfo{Name: "mismatch", Score: 2, Seed: "000",
			Flaw: "no payload fingerprint: a key reused with another payload replays the first result instead of 422"},
		newGuard: func(d guardDeps) guard { return blindGuard{atomicStore(d)} },
		durable:  true, effects: true, dryRun: true,
	},
	{
		ProfileInfo: ProfileInfo{Name: "payload-dedup", Score: 0, Seed: "002 option 1",
			Flaw: "keys derive from customer and amount/plan, not the client's key: distinct intents with equal inputs merge into one charge"},
		newGuard: func(d guardDeps) guard { return derivedKeyGuard{atomicStore(d)} },
		durable:  true, effects: true, dryRun: true,
	},
	{
		ProfileInfo: ProfileInfo{Name: "unstable-replay", Score: 1, Seed: "000",
			Flaw: "the store remembers that a key was done, not the reply: a replay returns a fresh id"},
		newGuard: func(d guardDeps) guard { return forgetfulGuard{inner: atomicStore(d), ids: d.ids} },
		durable:  true, effects: true, dryRun: true,
	},
	{
		ProfileInfo: ProfileInfo{Name: "mark-first", Score: 0, Seed: "000, 002 option 5",
			Flaw: "marks the key complete before charging: after a failed charge a retry replays a success that never happened"},
		newGuard: func(d guardDeps) guard { return earlyMarkGuard{atomicStore(d)} },
		durable:  true, effects: true, dryRun: true,
	},
	{
		ProfileInfo: ProfileInfo{Name: "read-side-effect", Score: 0, Seed: "001",
			Flaw: "the safe GET /orders charges a card verification the first time it sees a customer"},
		newGuard: atomicOnly, durable: true, effects: true, dryRun: true, verifyOnRead: true,
	},
	{
		ProfileInfo: ProfileInfo{Name: "memory-cache", Score: 0, Seed: "002 option 1",
			Flaw: "an in-memory key cache, key not passed downstream: after a crash, or a downstream failure after the charge, the retry charges again"},
		newGuard: func(d guardDeps) guard { return memoryCacheGuard{newAtomicGuard(nil, d.boot)} },
		effects:  true, dryRun: true,
	},
	{
		ProfileInfo: ProfileInfo{Name: "check-then-act", Score: 0, Seed: "002 options 4 and 6",
			Flaw: "looks the key up, charges, then stores, with no claim in between and no key downstream: concurrent duplicates all charge"},
		newGuard: func(d guardDeps) guard { return newCheckThenActGuard(d.journal, d.window) },
		durable:  true, effects: true, dryRun: true,
	},
	{
		ProfileInfo: ProfileInfo{Name: "lock-no-lease", Score: 1, Seed: "000",
			Flaw: "an in_progress mark without a lease: after a crash mid-request the key answers 409 in flight forever (stuck, not duplicated)"},
		newGuard: func(d guardDeps) guard { return newNoLeaseGuard(d.journal, d.boot) },
		durable:  true, effects: true, dryRun: true,
	},
	{
		ProfileInfo: ProfileInfo{Name: "no-propagation", Score: 0, Seed: "002 option 3",
			Flaw: "retries a charge that failed with 5xx by itself, without the Idempotency-Key: a charge made before the failure is made again"},
		newGuard: atomicOnly, durable: true, newCharger: func(pay *paymentsClient) charger { return keylessRetry{pay} },
		effects: true, dryRun: true,
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
