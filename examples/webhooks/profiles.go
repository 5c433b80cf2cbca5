package webhooks

import (
	"fmt"
	"slices"
	"strings"
)

// ProfileInfo says what a profile is built to show.
type ProfileInfo struct {
	// Name is the value of --profile.
	Name string
	// Score is the rubric level the profile is built to get.
	Score int
	// Flaw is the planted flaw, in a sentence; "" for correct.
	Flaw string
	// Check is the check built to catch the flaw; "" for correct.
	Check string
}

// profile is a ProfileInfo plus how the handler is assembled for it.
type profile struct {
	ProfileInfo
	// verify says whether signatures are checked.
	verify bool
	// passKey says whether the event id goes to payments as the
	// Idempotency-Key.
	passKey bool
	// newDedup builds the de-duplication strategy.
	newDedup func(d dedupDeps) (dedup, error)
}

var registry = []profile{
	{
		ProfileInfo: ProfileInfo{Name: "correct", Score: 3},
		verify:      true, passKey: true, newDedup: newDurable,
	},
	{
		ProfileInfo: ProfileInfo{Name: "mark-seen-first", Score: 0, Check: "exactly-once",
			Flaw: "marks the event seen before processing it: after a failed charge or a crash before it, the redelivery is skipped and the event is lost"},
		verify: true, passKey: true, newDedup: newMarkFirst,
	},
	{
		ProfileInfo: ProfileInfo{Name: "lru-memory", Score: 0, Check: "crash.recovery",
			Flaw: "remembers seen event ids in process memory (an LRU) and passes no key downstream: after a restart, an eviction or a delivery its sender abandoned, a redelivery charges again"},
		verify: true, newDedup: newLRU,
	},
	{
		ProfileInfo: ProfileInfo{Name: "no-signature", Score: 0, Check: "webhook.signature",
			Flaw: "never verifies the signature: a forged event is processed"},
		passKey: true, newDedup: newDurable,
	},
	{
		ProfileInfo: ProfileInfo{Name: "high-water-mark", Score: 0, Check: "webhook.out-of-order",
			Flaw: "skips events not newer than the newest processed, instead of de-duplicating by id: an event overtaken by a later one is lost"},
		verify: true, passKey: true, newDedup: newHighWater,
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
