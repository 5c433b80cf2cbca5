package shop

import (
	"fmt"
	"github.com/redis/go-redis/v9"
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
	// Flaw is the one planted flaw, in a sentence; "" for correct.
	Flaw string
	// Redis says that the profile keeps its keys in Redis (--redis): a
	// store that outlives the shop's state directory and every run.
	Redis bool
	// KeyFormat is the key format the profile accepts ("" for any key;
	// "uuid" for a shop that validates its keys).
	KeyFormat string
	// Replicas is how many instances of the shop, sharing one store, the
	// Score is for; 0 means one.
	Replicas int
	// Callers is how many callers (distinct Authorization headers) the
	// Score is for; 0 means one.
	Callers int
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
	// callerBlind keys the store by the client's key alone, not by the
	// caller (Authorization) and the key.
	callerBlind bool
	// errorAfterCharge answers a subscription whose charge went through
	// with 502 "charge failed: please retry".
	errorAfterCharge bool
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
	// redis is the Redis key store (--redis), nil without one.
	redis *redis.Client
	// keys and ttl are the retention of the bounded-keys and
	// expiring-keys profiles (--keys, --ttl).
	keys int
	ttl  time.Duration
}

// atomicStore is the correct guard on the durable store: the base every
// profile "as correct" wraps with its flaw.
func atomicStore(d guardDeps) *atomicGuard { return newAtomicGuard(d.journal, d.boot) }

func atomicOnly(d guardDeps) guard { return atomicStore(d) }

var registry = []profile{
	{
		ProfileInfo: ProfileInfo{Name: "correct", Score: 3},
		newGuard:    atomicOnly, durable: true, effects: true, dryRun: true,
	},
	{
		ProfileInfo: ProfileInfo{Name: "nokey", Score: 0,
			Flaw: "ignores Idempotency-Key: every retry charges again; no effect field, no dry-run"},
		newGuard: func(guardDeps) guard { return noGuard{} },
	},
	{
		ProfileInfo: ProfileInfo{Name: "noeffect", Score: 1,
			Flaw: "replies never carry the effect field, nor mark a replay (no Idempotent-Replayed header), so a client cannot tell a replay from a first run"},
		newGuard: atomicOnly, durable: true, dryRun: true,
	},
	{
		ProfileInfo: ProfileInfo{Name: "nodryrun", Score: 2,
			Flaw: "keys are optional (a keyless POST executes unguarded) and dry_run is ignored"},
		newGuard: func(d guardDeps) guard { return optionalKeyGuard{atomicStore(d)} },
		durable:  true, effects: true,
	},
	{
		ProfileInfo: ProfileInfo{Name: "mismatch", Score: 2,
			Flaw: "no payload fingerprint: a key reused with another payload replays the first result instead of 422"},
		newGuard: func(d guardDeps) guard { return blindGuard{atomicStore(d)} },
		durable:  true, effects: true, dryRun: true,
	},
	{
		ProfileInfo: ProfileInfo{Name: "payload-dedup", Score: 0,
			Flaw: "keys derive from customer and amount/plan, not the client's key: distinct intents with equal inputs merge into one charge"},
		newGuard: func(d guardDeps) guard { return derivedKeyGuard{atomicStore(d)} },
		durable:  true, effects: true, dryRun: true,
	},
	{
		ProfileInfo: ProfileInfo{Name: "unstable-replay", Score: 1,
			Flaw: "the store remembers that a key was done, not the reply: a replay returns a fresh id"},
		newGuard: func(d guardDeps) guard { return forgetfulGuard{inner: atomicStore(d), ids: d.ids} },
		durable:  true, effects: true, dryRun: true,
	},
	{
		ProfileInfo: ProfileInfo{Name: "mark-first", Score: 0,
			Flaw: "marks the key complete before charging: after a failed charge a retry replays a success that never happened"},
		newGuard: func(d guardDeps) guard { return earlyMarkGuard{atomicStore(d)} },
		durable:  true, effects: true, dryRun: true,
	},
	{
		ProfileInfo: ProfileInfo{Name: "read-side-effect", Score: 0,
			Flaw: "the safe GET /orders charges a card verification the first time it sees a customer"},
		newGuard: atomicOnly, durable: true, effects: true, dryRun: true, verifyOnRead: true,
	},
	{
		ProfileInfo: ProfileInfo{Name: "memory-cache", Score: 0,
			Flaw: "an in-memory key cache, key not passed downstream: after a crash, or a downstream failure after the charge, the retry charges again"},
		newGuard: func(d guardDeps) guard { return memoryCacheGuard{newAtomicGuard(nil, d.boot)} },
		effects:  true, dryRun: true,
	},
	{
		ProfileInfo: ProfileInfo{Name: "check-then-act", Score: 0,
			Flaw: "looks the key up, charges, then stores, with no claim in between and no key downstream: concurrent duplicates all charge"},
		newGuard: func(d guardDeps) guard { return newCheckThenActGuard(d.journal, d.window) },
		durable:  true, effects: true, dryRun: true,
	},
	{
		ProfileInfo: ProfileInfo{Name: "lock-no-lease", Score: 1,
			Flaw: "an in_progress mark without a lease: after a crash mid-request the key answers 409 in flight forever (stuck, not duplicated)"},
		newGuard: func(d guardDeps) guard { return newNoLeaseGuard(d.journal, d.boot) },
		durable:  true, effects: true, dryRun: true,
	},
	{
		ProfileInfo: ProfileInfo{Name: "no-propagation", Score: 0,
			Flaw: "retries a charge that failed with 5xx by itself, without the Idempotency-Key: a charge made before the failure is made again"},
		newGuard: atomicOnly, durable: true, newCharger: func(pay *paymentsClient) charger { return keylessRetry{pay} },
		effects: true, dryRun: true,
	},
	{
		ProfileInfo: ProfileInfo{Name: "redis-correct", Score: 3, Redis: true},
		newGuard:    func(d guardDeps) guard { return redisAtomicGuard{rdb: d.redis, boot: d.boot} },
		effects:     true, dryRun: true,
	},
	{
		ProfileInfo: ProfileInfo{Name: "redis-check-then-set", Score: 0, Redis: true,
			Flaw: "GET the key, SET it in_progress, charge, SET the result: copies that arrive together all miss and all charge; a crash leaves the key in progress for a day"},
		newGuard: func(d guardDeps) guard { return redisCheckThenSetGuard{rdb: d.redis} },
		effects:  true, dryRun: true,
	},
	{
		ProfileInfo: ProfileInfo{Name: "redis-process-lock", Score: 0, Replicas: 2, Redis: true,
			Flaw: "a mutex held in the process around GET the key, SET in_progress on a shared Redis: correct as one instance (it scores 3); two instances over the same Redis both claim copies that arrive together, and both charge"},
		newGuard: newProcessLockGuard,
		effects:  true, dryRun: true,
	},
	{
		ProfileInfo: ProfileInfo{Name: "caller-unscoped", Score: 1, Callers: 2,
			Flaw: "keys are not scoped to the caller: a key another caller (another Authorization) used first is refused as a reuse, or answered with that caller's stored reply"},
		newGuard: atomicOnly, durable: true, effects: true, dryRun: true, callerBlind: true,
	},
	{
		ProfileInfo: ProfileInfo{Name: "unscoped-keys", Score: 2,
			Flaw: "keys are not scoped to the operation: a key used on another endpoint replays that endpoint's stored reply and runs nothing"},
		newGuard: func(d guardDeps) guard { return unscopedGuard{atomicStore(d)} },
		durable:  true, effects: true, dryRun: true,
	},
	{
		ProfileInfo: ProfileInfo{Name: "context-bookkeeping", Score: 1,
			Flaw: "records the outcome on the request's context: a client that disconnects mid-request leaves the key in progress (409) until a restart"},
		newGuard: func(d guardDeps) guard { return contextBoundGuard{atomicStore(d)} },
		durable:  true, effects: true, dryRun: true,
	},
	{
		ProfileInfo: ProfileInfo{Name: "error-after-charge", Score: 1,
			Flaw: "a subscription whose charge went through is answered 502 \"charge failed: please retry\"; the retry with the same key is answered from payments' replay, so nothing is charged twice, but the caller was told a failure that did not happen"},
		newGuard: atomicOnly, durable: true, effects: true, dryRun: true, errorAfterCharge: true,
	},
	{
		ProfileInfo: ProfileInfo{Name: "key-column-500", Score: 1,
			Flaw: "keys are stored in a 64-character column with no check of their length first: a longer key fails the insert and is answered 500, a server error, where a malformed key is the client's (400)"},
		newGuard: func(d guardDeps) guard { return keyColumnGuard{atomicStore(d)} },
		durable:  true, effects: true, dryRun: true,
	},
	{
		ProfileInfo: ProfileInfo{Name: "bounded-keys", Score: 0,
			Flaw: "the key store keeps only the last --keys keys (64 by default), least recently used out: a retry after that many other keys charges again"},
		newGuard: func(d guardDeps) guard { return newRetentionGuard(d.journal, d.boot, d.keys, 0) },
		durable:  true, effects: true, dryRun: true,
	},
	{
		ProfileInfo: ProfileInfo{Name: "expiring-keys", Score: 0,
			Flaw: "the key store forgets a key --ttl after it was first used (1s by default): a retry after that charges again"},
		newGuard: func(d guardDeps) guard { return newRetentionGuard(d.journal, d.boot, 0, d.ttl) },
		durable:  true, effects: true, dryRun: true,
	},
	{
		ProfileInfo: ProfileInfo{Name: "uuid-keys", Score: 3, KeyFormat: "uuid"},
		newGuard:    func(d guardDeps) guard { return uuidKeyGuard{atomicStore(d)} },
		durable:     true, effects: true, dryRun: true,
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
