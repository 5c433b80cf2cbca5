package engine

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/idemcheck/idemcheck/internal/oncehttp"
	"github.com/idemcheck/idemcheck/record"
)

// failFastAttempts is how many unfaulted attempts of an operation, from
// its first, may all fail the same way before the target is declared
// untestable at once: a target that fails every call would otherwise be
// found untestable only after every probe (minutes for a slow tool), and
// judged by checks.Untestable on the same evidence.
const failFastAttempts = 3

// failFast follows the first attempts of each operation in a probe run.
type failFast struct {
	on bool
	// first is, per operation, how its first unfaulted attempts failed;
	// done marks an operation that succeeded once, or that failed in two
	// ways, so is judged no further.
	first map[string][]string
	done  map[string]bool
}

// noteFailure looks at attempt a of in, as checks.Untestable would: an
// unfaulted attempt of a plain or read intent never faulted. When the first
// failFastAttempts of an operation all failed the same way, the run stops
// (r.fatal) saying so, before the other probes.
func (r *runner) noteFailure(in *record.Intent, a record.Attempt) {
	if (in.Role != record.RolePlain && in.Role != record.RoleRead) || a.Fault != "" || a.Burst || a.DryRun || in.Faulted() {
		return
	}
	r.noteWay(in, a)
}

// noteBurst looks at the copies of a burst released together at in: one
// that succeeded shows the operation works; copies that all failed the
// same way count as one failed attempt, the first copy standing for them.
func (r *runner) noteBurst(in *record.Intent, copies []record.Attempt) {
	if len(copies) == 0 || in.Faulted() {
		return
	}
	way := failureWay(copies[0])
	for _, a := range copies {
		if succeeded(in, a) {
			r.noteWay(in, a)
			return
		}
		if failureWay(a) != way {
			r.ff.stop(in.Operation) // failing in several ways: the checks judge it
			return
		}
	}
	r.noteWay(in, copies[0])
}

// succeeded says whether a shows that in's operation works: the target
// did it, or a safe operation answered (a lookup's 4xx is an answer).
func succeeded(in *record.Intent, a record.Attempt) bool {
	return a.Outcome == record.OK || (!in.Mutating && a.Status >= 400 && a.Status < 500)
}

// stop judges op no further.
func (ff *failFast) stop(op string) {
	if ff.done == nil {
		ff.first, ff.done = map[string][]string{}, map[string]bool{}
	}
	ff.done[op] = true
}

// noteWay counts attempt a of in towards its operation's first attempts.
func (r *runner) noteWay(in *record.Intent, a record.Attempt) {
	ff := &r.ff
	if !ff.on || r.fatal != nil || r.s.ctx.Err() != nil || ff.done[in.Operation] {
		return
	}
	if succeeded(in, a) {
		ff.stop(in.Operation)
		return
	}
	if ff.first == nil {
		ff.first, ff.done = map[string][]string{}, map[string]bool{}
	}
	way := failureWay(a)
	seen := ff.first[in.Operation]
	if len(seen) > 0 && seen[0] != way {
		ff.stop(in.Operation) // failing in several ways: the checks judge it
		return
	}
	ff.first[in.Operation] = append(seen, way)
	if len(ff.first[in.Operation]) < failFastAttempts {
		return
	}
	what := fmt.Sprintf("answered %d %s%s", a.Status, shortText(strings.TrimSpace(a.Body), 120), oncehttp.PlainToTLSHint(a.Body))
	if a.Error != "" {
		what = a.Error
	}
	request := r.rec.Target.Request
	if request == "" {
		request = "method, path, body"
	}
	// A refusal of the key's shape says what to set, as it does when the
	// probes end untestable.
	soFar := &record.Record{Intents: append(append([]record.Intent(nil), r.rec.Intents...), *in)}
	r.fatal = fmt.Errorf("%s failed its first %d attempts the same way (last: %s), so the other probes were not run: check the operation's %s and inputs, and that the target is healthy%s",
		in.Operation, failFastAttempts, what, request, keyFormatHint(soFar, r.s.spec.KeyFormat))
}

// failureWay is how an attempt failed, without what varies between two
// attempts that fail alike (ids, keys, times: digits; how much of a cut
// reply arrived, which a burst's copy does not count). A reply cut at
// what idemcheck keeps and one whose body did not arrive whole (in time,
// or at all: the connection failed during it) are one way, whatever
// status came with either: a body that never ends is the one or the
// other depending on how fast the machine reads it, and one read through
// the fault proxy tells no status while a burst's copy does.
func failureWay(a record.Attempt) string {
	if strings.HasPrefix(a.Error, record.ReplyCut) || strings.HasPrefix(a.Error, record.ReplyUnfinished) {
		return fmt.Sprintf("%s|%s", a.Outcome, record.ReplyCut)
	}
	strip := func(s string) string {
		return strings.Map(func(r rune) rune {
			if unicode.IsDigit(r) {
				return -1
			}
			return r
		}, s)
	}
	return fmt.Sprintf("%s|%d|%s|%s", a.Outcome, a.Status, a.ExitSignal, strip(a.Error))
}

// shortText cuts s to n runes, marking the cut.
func shortText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
