package observe

import (
	"fmt"
	"strings"
)

// Stats is what an observer has seen since it opened, for the report and
// for the message of a target that could not be judged.
type Stats struct {
	// Markers is how many distinct markers it was asked about.
	Markers int
	// Found is how many of them it found at least one effect for.
	Found int
	// Reads is how many times it was asked (one Observe each).
	Reads int
	// Failed is how many of those reads ended in an error.
	Failed int
	// Partial is how many reads may have missed effects, and LastPartial
	// why (a page limit).
	Partial     int
	LastPartial string
	// Absent is how many reads found no source at all (a file not created
	// yet), and LastAbsent what was missing.
	Absent     int
	LastAbsent string
	// LastError is the last read's error, "" when it succeeded.
	LastError string
}

// note counts one Observe.
func (o *Observer) note(marker string, f Found, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	s := &o.stats
	s.Reads++
	if !o.seen[marker] {
		o.seen[marker] = true
		s.Markers++
	}
	if len(f.Rows) > 0 && !o.found[marker] {
		o.found[marker] = true
		s.Found++
	}
	if f.Partial != "" {
		s.Partial++
		s.LastPartial = f.Partial
	}
	if f.Absent != "" {
		s.Absent++
		s.LastAbsent = f.Absent
	}
	s.LastError = ""
	if err != nil {
		s.Failed++
		s.LastError = err.Error()
	}
}

// Stats returns what the observer has seen since it opened.
func (o *Observer) Stats() Stats {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.stats
}

// Summary says in one line what the observer saw, for a report or for the
// message of a target that could not be judged: "orders-db (sql) found no
// order for any of the 21 markers", "… found an order for 20 of the 21
// markers; 3 reads stopped at the page limit (10 pages): its counts may be
// low".
func (o *Observer) Summary() string {
	s := o.Stats()
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s) ", o.name, o.source)
	switch {
	case s.Markers == 0:
		b.WriteString("was not asked about any marker")
	case o.delta != nil && s.Found == 0:
		fmt.Fprintf(&b, "saw no change for any of the %s", plural(s.Markers, "intent", "intents"))
	case o.delta != nil:
		fmt.Fprintf(&b, "saw a change for %d of the %s (attributed by delta)", s.Found, plural(s.Markers, "intent", "intents"))
	case s.Found == 0:
		fmt.Fprintf(&b, "found no %s for any of the %s", o.kind, plural(s.Markers, "marker", "markers"))
	default:
		fmt.Fprintf(&b, "found %s %s for %d of the %s", article(o.kind), o.kind, s.Found, plural(s.Markers, "marker", "markers"))
	}
	if s.Absent > 0 && s.Absent == s.Reads {
		fmt.Fprintf(&b, "; %s never existed", s.LastAbsent)
	}
	if s.Partial > 0 {
		fmt.Fprintf(&b, "; %s %s: its counts may be low", plural(s.Partial, "read", "reads"), s.LastPartial)
	}
	if s.Failed > 0 {
		fmt.Fprintf(&b, "; %s failed (last: %s)", plural(s.Failed, "read", "reads"), s.LastError)
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func article(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}
