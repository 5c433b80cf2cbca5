package checks

import (
	"fmt"
	"strings"

	"github.com/idemcheck/idemcheck/internal/lazyregexp"
	"github.com/idemcheck/idemcheck/record"
)

// keylessChecks are the checks that, on a target whose mutating
// operations take no idempotency key, judge what calling an operation
// again with the same arguments does: what its annotations promise (see
// mcp.idempotent-hint) is the only promise it makes. Their findings are
// worded without keys, one per check and operation.
var keylessChecks = map[string]bool{
	CheckRetrySequential:      true,
	CheckRetryAfterFault:      true,
	CheckRetryLate:            true,
	CheckConcurrentDuplicates: true,
	CheckCrashRecovery:        true,
}

// keyWording rewrites what a finding says about a key as what it says
// about the same arguments, for an operation that takes no key.
var keyWording = []struct {
	re   *lazyregexp.Regexp
	with string
}{
	{lazyregexp.New(`the same key sent (\d+) times`), "calling it $1 times with the same arguments"},
	{lazyregexp.New(`the retry with the same key`), "the same call again"},
	{lazyregexp.New(`(\d+) same-key requests`), "$1 identical calls"},
	{lazyregexp.New(`with the same key`), "with the same arguments"},
	{lazyregexp.New(`: the key is not honoured|: the key store forgot the key|: the key is checked and claimed in two steps; claim it atomically|: a retry one at a time acted again too: the key is not honoured at all, with or without a race|: the key store did not survive the crash, or the key was not passed downstream`), ""},
	{lazyregexp.New(`\. Keep every key for as long as clients may retry.*$`), ""},
	{lazyregexp.New(` even after a single other key: it keeps keys for less than [^,(]+, or none at all`), ""},
	{lazyregexp.New(`; a retry after \d+ other keys? still replayed: it keeps [^(]*[^ (]`), ""},
	{lazyregexp.New(`after 1 other key\b`), "after 1 other call"},
	{lazyregexp.New(`after (\d+) other keys\b`), "after $1 other calls"},
}

// keylessFindings words the findings of keylessChecks on an operation
// that takes no key (record.TargetInfo.Keyless) without keys, naming the
// operation, and keeps one per check and operation (the worst), saying
// how many intents showed it: every intent of a tool that acts on every
// call shows the same thing.
func keylessFindings(rec *record.Record, fs []record.Finding) []record.Finding {
	if len(fs) == 0 {
		return fs
	}
	var out []record.Finding
	at, seen := map[string]int{}, map[string]int{}
	for _, f := range fs {
		if !keylessChecks[f.Check] || !rec.Target.Keyless(f.Operation) {
			out = append(out, f)
			continue
		}
		k := f.Check + "\x00" + f.Operation
		seen[k]++
		if i, ok := at[k]; ok {
			if f.Severity.Rank() > out[i].Severity.Rank() {
				out[i] = f
			}
			continue
		}
		at[k] = len(out)
		out = append(out, f)
	}
	for k, i := range at {
		f := &out[i]
		msg := f.Message
		for _, w := range keyWording {
			msg = w.re.ReplaceAllString(msg, w.with)
		}
		msg = strings.Replace(msg, "calling it", "calling "+f.Operation, 1)
		msg += "; " + keylessPromise(rec, f.Operation)
		if n := seen[k]; n > 1 {
			msg += fmt.Sprintf(" (seen in %d intents)", n)
		}
		f.Message = msg
	}
	return out
}

// keylessPromise says what an operation that takes no key promises about
// being called again.
func keylessPromise(rec *record.Record, op string) string {
	o, _ := rec.Target.Operation(op)
	switch a := o.Annotations; {
	case a == nil:
		return "it takes no key and has no annotations saying whether calling it again is safe"
	case a.Idempotent:
		return "it takes no key and says idempotentHint: true"
	default:
		return "it takes no key and says idempotentHint: false"
	}
}

// withoutKeylessOps drops the findings a check that judges keys made on
// operations that take none, on a target whose other operations do: a
// key it never sent says nothing of them.
func withoutKeylessOps(rec *record.Record, fs []record.Finding) []record.Finding {
	out := fs[:0:0]
	for _, f := range fs {
		if f.Operation == "" || !rec.Target.Keyless(f.Operation) {
			out = append(out, f)
		}
	}
	return out
}

// keylessNote is the skip note of a check that applies only to targets
// that take idempotency keys, on one that takes none.
const keylessNote = "not applicable: no mutating operation takes an idempotency key; such operations are judged by what calling them again does, against what their annotations promise"

// eventKeyNote is that note on a target whose key is the event's own id.
const eventKeyNote = "not applicable: the key is the event's own id, which every delivery of the event carries and its sender chooses: the caller can neither leave it out, nor send it with another payload, nor choose its form"
