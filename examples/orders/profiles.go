package orders

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Profiles are the ways an order can be inserted, the correct one first.
var Profiles = []string{"correct", "no-unique", "check-then-insert"}

// Info says what a profile is built to score and why.
type Info struct {
	Score int
	Flaw  string
}

var infos = map[string]Info{
	"correct":           {3, ""},
	"no-unique":         {0, "INSERT … ON CONFLICT DO NOTHING with no unique constraint on the key: nothing conflicts, every retry inserts again"},
	"check-then-insert": {0, "looks the key up, then inserts, with no unique constraint: concurrent copies all insert"},
}

// Describe returns what profile is built for.
func Describe(profile string) (Info, bool) {
	i, ok := infos[profile]
	return i, ok
}

// outcome is what creating an order did: the order, and whether it was
// made now (false: an earlier request with the key made it).
type outcome struct {
	order   Order
	created bool
}

// errMismatch is a key reused with another payload.
type errMismatch struct{ key string }

func (e errMismatch) Error() string {
	return fmt.Sprintf("idempotency key %q was used with another payload", e.key)
}

// creator inserts an order for a key, however the profile does it.
type creator func(ctx context.Context, s *store, o Order, key, fp string) (outcome, error)

func creatorFor(profile string, window time.Duration) (creator, bool, error) {
	switch profile {
	case "correct":
		return insertUnique, true, nil
	case "no-unique":
		return insertBlind, false, nil
	case "check-then-insert":
		return func(ctx context.Context, s *store, o Order, key, fp string) (outcome, error) {
			return checkThenInsert(ctx, s, o, key, fp, window)
		}, false, nil
	}
	return nil, false, fmt.Errorf("unknown profile %q: expected one of %s", profile, strings.Join(Profiles, ", "))
}

// insertUnique: one statement against the key's unique index; nothing
// inserted means the key exists, and the order it made is the answer.
func insertUnique(ctx context.Context, s *store, o Order, key, fp string) (outcome, error) {
	id, err := s.insertOrNothing(ctx, o, key, fp, true)
	if err != nil {
		return outcome{}, err
	}
	if id != "" {
		o.ID = id
		return outcome{order: o, created: true}, nil
	}
	return existing(ctx, s, key, fp)
}

// insertBlind: the same statement, but with nothing to conflict with.
func insertBlind(ctx context.Context, s *store, o Order, key, fp string) (outcome, error) {
	id, err := s.insertOrNothing(ctx, o, key, fp, false)
	if err != nil {
		return outcome{}, err
	}
	if id == "" {
		return existing(ctx, s, key, fp)
	}
	o.ID = id
	return outcome{order: o, created: true}, nil
}

// checkThenInsert: a lookup, the work between (window), then the insert.
func checkThenInsert(ctx context.Context, s *store, o Order, key, fp string, window time.Duration) (outcome, error) {
	prev, prevFP, err := s.byKey(ctx, key)
	if err != nil {
		return outcome{}, err
	}
	if prev != nil {
		if prevFP != fp {
			return outcome{}, errMismatch{key}
		}
		return outcome{order: *prev}, nil
	}
	if window > 0 {
		time.Sleep(window) // pricing, stock: whatever runs between the check and the insert
	}
	id, err := s.insertOrNothing(ctx, o, key, fp, false)
	if err != nil {
		return outcome{}, err
	}
	o.ID = id
	return outcome{order: o, created: true}, nil
}

// existing replays the order key made, or refuses another payload.
func existing(ctx context.Context, s *store, key, fp string) (outcome, error) {
	prev, prevFP, err := s.byKey(ctx, key)
	if err != nil {
		return outcome{}, err
	}
	if prev == nil {
		return outcome{}, fmt.Errorf("key %q conflicted but no order holds it", key)
	}
	if prevFP != fp {
		return outcome{}, errMismatch{key}
	}
	return outcome{order: *prev}, nil
}
