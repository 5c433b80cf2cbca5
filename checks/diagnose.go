package checks

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/record"
)

// The causes a duplicate is explained by, each chosen from who served the
// attempts that caused its effects (record.Reply.Instance, Session,
// record.Attempt.Incarnation) and when.
const (
	causeAtomic = "the key is checked and claimed in two steps; claim it atomically"
	// causeIgnored replaces causeAtomic when retries one at a time acted
	// again too: no race is needed to duplicate.
	causeIgnored = "a retry one at a time acted again too: the key is not honoured at all, with or without a race"
	// causePerInstance and causePerSession name a store kept apart by
	// each instance, or each session.
	causePerInstance = "one store per instance"
	causePerSession  = "the attempts came in different sessions"
	// causeEither starts a cause that names a store kept apart and a
	// claim in two steps, which the evidence did not tell apart.
	causeEither = "either "
)

// atomicOr is causeAtomic, or causeIgnored when a sequential retry of
// op (retry.sequential's) acted again as well.
func atomicOr(r *record.Record, op string) string {
	for i := range r.Intents {
		in := &r.Intents[i]
		if in.Operation != op || !in.Mutating || in.Role != record.RolePlain || owner(r, in) != CheckRetrySequential || len(in.Attempts) < 2 {
			continue
		}
		if !slices.ContainsFunc(in.Attempts, func(a record.Attempt) bool { return a.Burst }) && repeated(r.EffectsOf(in)) > 1 {
			return causeIgnored
		}
	}
	return causeAtomic
}

// duplicateCause explains why the attempts at in, which share its key,
// caused more than one effect, from the evidence of who served them:
// attempts on different instances whose store is not shown shared → one
// store per instance; in different sessions → keys kept per session; at
// once on different ones with no retry to tell a store kept apart from a
// race → both (raceUnproven); a restart between them → the store did not
// survive it; the same instance and session, at once → the claim is not
// atomic. "" when the evidence says none of these.
func duplicateCause(r *record.Record, in *record.Intent) string {
	if c := downstreamCause(r.EffectsOf(in)); c != "" {
		if n := len(answeredAs(in)); n > 1 && atOnce(in) {
			// The replies name more than one result: the target acted on
			// more than one copy, whatever its own data kept of them.
			once := ""
			if slices.ContainsFunc(r.EffectsOf(in), func(e fakes.Effect) bool { return e.Observed }) {
				once = ", though its own data shows the intent once"
			}
			return fmt.Sprintf("%s (the copies were answered as %d different results: the target acted on more than one of them%s); and %s", atomicOr(r, in.Operation), n, once, c)
		}
		return c
	}
	causers := effectAttempts(r, in)
	if len(causers) < 2 {
		return ""
	}
	concurrent := overlapping(causers)
	if servedApart(causers) && ignoredAlone(r, in.Operation) {
		// Neither instances, sessions nor a restart are needed to
		// duplicate: the key is not honoured where all of them are one.
		return causeIgnored
	}
	if names := distinct(causers, instanceOf); len(names) > 1 {
		if within := raceWithin(in, instanceOf); within != "" {
			return atomicOr(r, in.Operation) + " (" + within + " alone answered copies sent at the same time as different results)"
		}
		if concurrent && sharedAcross(r, in.Operation, instanceOf) {
			return causeAtomic + " (the instances share one store, and one burst spread over " + strings.Join(names, ", ") + " went through twice)"
		}
		if c := raceUnproven(r, in, causers, names, "instance", "each instance keeps its own keys ("+causePerInstance+"; keep the keys in a store every instance shares)", instanceOf); c != "" {
			return c
		}
		return fmt.Sprintf("the attempts were served by different instances (%s), and each keeps its own keys: "+causePerInstance+"; keep the keys in a store every instance shares", strings.Join(names, ", "))
	}
	if names := distinct(causers, sessionOf); len(names) > 1 {
		if within := raceWithin(in, sessionOf); within != "" {
			return atomicOr(r, in.Operation) + " (" + within + " alone answered copies sent at the same time as different results)"
		}
		if concurrent && sharedAcross(r, in.Operation, sessionOf) {
			return causeAtomic
		}
		apart := "the keys are kept per session (keep them for the whole server, whatever the session)"
		if r.Target.Caps().SessionProcess {
			apart = "each session's server process keeps the keys in its memory (keep them in durable storage that every process of the server reads)"
		}
		if c := raceUnproven(r, in, causers, names, "session", apart, sessionOf); c != "" {
			return c
		}
		if r.Target.Caps().SessionProcess {
			return fmt.Sprintf(causePerSession+" (%s), each a server process of its own, and the keys are kept in the process's memory: keep them in durable storage that every process of the server reads (a file, a database)", strings.Join(names, ", "))
		}
		return fmt.Sprintf(causePerSession+" (%s), and the keys are kept per session; keep them for the whole server, whatever the session", strings.Join(names, ", "))
	}
	if gens := distinct(causers, incarnationOf); len(gens) > 1 && !concurrent {
		return fmt.Sprintf("the target restarted between the attempts (incarnations %s), and the key store did not survive the restart; keep keys in durable storage", strings.Join(gens, " and "))
	}
	if concurrent {
		return atomicOr(r, in.Operation)
	}
	return ""
}

// answeredAs returns the distinct results (identities) in's successful
// attempts were answered with, dry runs left out.
func answeredAs(in *record.Intent) []string {
	var as []*record.Attempt
	for i := range in.Attempts {
		if a := &in.Attempts[i]; a.Outcome == record.OK && !a.DryRun {
			as = append(as, a)
		}
	}
	return distinct(as, func(a *record.Attempt) string { return a.Identity })
}

// atOnce reports whether attempts at in were made at the same time: a
// burst's copies (released together, whatever their recorded times say),
// or attempts that overlapped.
func atOnce(in *record.Intent) bool {
	as := make([]*record.Attempt, len(in.Attempts))
	copies := 0
	for i := range in.Attempts {
		as[i] = &in.Attempts[i]
		if as[i].Burst {
			copies++
		}
	}
	return copies > 1 || overlapping(as)
}

// apartCause is duplicateCause when it names who served in's attempts
// apart (instances or sessions that keep keys of their own, a restart) or
// a key not honoured at all, and "" when it names a race: a fault that
// held the first attempt while its retry ran (a stalled database) made
// the attempts overlap, and its own account of why explains them better
// than a claim in two steps.
func apartCause(r *record.Record, in *record.Intent) string {
	c := duplicateCause(r, in)
	switch {
	case strings.HasPrefix(c, causeAtomic), strings.HasPrefix(c, causeEither):
		return ""
	case strings.Contains(c, causePerInstance) && !keptApart(r, in.Operation, instanceOf),
		strings.HasPrefix(c, causePerSession) && !keptApart(r, in.Operation, sessionOf):
		// Attempts one after another on two instances (sessions) that
		// acted twice say nothing of a store kept apart unless a retry
		// without a fault showed it: the fault's own account stands.
		return ""
	}
	return c
}

// The names the attempts that caused a duplicate are told apart by: who
// served each one, and when.
func instanceOf(a *record.Attempt) string { return a.Instance }
func sessionOf(a *record.Attempt) string  { return a.Session }
func incarnationOf(a *record.Attempt) string {
	if a.Incarnation == 0 {
		return ""
	}
	return fmt.Sprint(a.Incarnation)
}

// raceWithin names one of what name tells apart (an instance, a
// session) whose attempts at in, made at the same time (a burst's copies,
// or overlapping), were answered as different results: a store kept per
// instance or per session does not explain that, a claim in two steps
// does. "" when there is none.
func raceWithin(in *record.Intent, name func(*record.Attempt) string) string {
	var as []*record.Attempt
	for i := range in.Attempts {
		if a := &in.Attempts[i]; a.Outcome == record.OK && a.Identity != "" && name(a) != "" && !a.DryRun {
			as = append(as, a)
		}
	}
	together := func(a, b *record.Attempt) bool {
		return (a.Burst && b.Burst) || (a.Start.Before(b.End) && b.Start.Before(a.End))
	}
	for i, a := range as {
		for _, b := range as[i+1:] {
			if name(a) == name(b) && a.Identity != b.Identity && together(a, b) {
				return name(a)
			}
		}
	}
	return ""
}

// raceUnproven is the cause of a duplicate made by attempts at the same
// time (a burst's copies) spread over what name tells apart (instances,
// sessions), when no retry one at a time showed them keeping keys apart
// (keptApart). More effects made while the copies ran than there were
// instances (sessions) among them say one of them acted twice on its own,
// which a store kept per instance does not explain: the claim in two
// steps is named. Otherwise both are named, and that nothing told them
// apart; apart is what a store kept per instance (session) would be, and
// its advice. "" when the attempts did not overlap, or a retry showed the
// keys kept apart.
func raceUnproven(r *record.Record, in *record.Intent, causers []*record.Attempt, names []string, what, apart string, name func(*record.Attempt) string) string {
	if !overlapping(causers) && !burstOnly(causers) || keptApart(r, in.Operation, name) {
		return ""
	}
	c := atomicOr(r, in.Operation)
	if c == causeIgnored {
		return c // one at a time in one place it acted again too
	}
	if n := repeated(effectsWhile(r, in, causers)); n > len(names) {
		return c + fmt.Sprintf(" (%d effects from copies sent at the same time to %d %ss, %s: one %s acted more than once)", n, len(names), what, strings.Join(names, ", "), what)
	}
	together := "the copies were sent at the same time"
	if !burstOnly(causers) {
		together = "the attempts ran at the same time"
	}
	return fmt.Sprintf(causeEither+"%s, or %s: %s to different %ss (%s), and no retry one at a time went to another %s than the one that answered first to tell which",
		apart, strings.Replace(c, "; claim it atomically", " (claim it atomically)", 1), together, what, strings.Join(names, ", "), what)
}

// effectsWhile are the effects of in recorded while one of as ran.
func effectsWhile(r *record.Record, in *record.Intent, as []*record.Attempt) []fakes.Effect {
	var out []fakes.Effect
	for _, e := range r.EffectsOf(in) {
		if slices.ContainsFunc(as, func(a *record.Attempt) bool { return e.Seq > a.LedgerBefore && e.Seq <= a.LedgerAfter }) {
			out = append(out, e)
		}
	}
	return out
}

// burstOnly reports whether every one of as is a burst's copy, sent at
// the same time as the others whatever their recorded times say.
func burstOnly(as []*record.Attempt) bool {
	return len(as) > 1 && !slices.ContainsFunc(as, func(a *record.Attempt) bool { return !a.Burst })
}

// servedApart reports whether as came from more than one instance, session or
// incarnation.
func servedApart(as []*record.Attempt) bool {
	return len(distinct(as, instanceOf)) > 1 || len(distinct(as, sessionOf)) > 1 || len(distinct(as, incarnationOf)) > 1
}

// ignoredAlone reports whether a retry of op one at a time (retry.sequential's,
// not a late one: a store that forgets keys soon also acts again late)
// acted again with every attempt that acted served by one instance, in one
// session, with no restart between them: then a duplicate spread over
// instances, sessions or a restart is not explained by them.
func ignoredAlone(r *record.Record, op string) bool {
	for i := range r.Intents {
		in := &r.Intents[i]
		if in.Operation != op || !in.Mutating || in.Key == "" || in.Role != record.RolePlain || owner(r, in) != CheckRetrySequential || len(in.Attempts) < 2 {
			continue
		}
		if slices.ContainsFunc(in.Attempts, func(a record.Attempt) bool { return a.Burst }) || repeated(r.EffectsOf(in)) < 2 {
			continue
		}
		if causers := effectAttempts(r, in); len(causers) > 1 && !servedApart(causers) && !overlapping(causers) {
			return true
		}
	}
	return false
}

// effectKind is one kind of effect of one fake or observer.
type effectKind struct{ fake, kind string }

// groupByKind groups effs by kind of effect, in the order each kind first
// appears.
func groupByKind(effs []fakes.Effect) ([]effectKind, map[effectKind][]fakes.Effect) {
	var order []effectKind
	byKind := map[effectKind][]fakes.Effect{}
	for _, e := range effs {
		k := effectKind{e.Fake, e.Kind}
		if _, ok := byKind[k]; !ok {
			order = append(order, k)
		}
		byKind[k] = append(byKind[k], e)
	}
	return order, byKind
}

// downstreamCause explains a duplicate among effs by the keys the fakes
// received, when they show it: an effect made once under the key the
// target passed on (that downstream de-duplicated the retries) while
// another was repeated without a key, or with a new key each time. The
// target's own key store did not stop the retries either, but what
// repeated is the un-keyed call, and a key passed to it stops it. ""
// when no effect that repeated is explained that way, or when nothing
// was made once under a key (then the effects do not tell the target's
// store from the downstream call).
func downstreamCause(effs []fakes.Effect) string {
	order, byKind := groupByKind(effs)
	var once, again []string
	overSMTP, smtpAgain := false, 0
	for _, k := range order {
		es := byKind[k]
		if len(es) > 1 && keyless(es) {
			// Sent again over a channel that de-duplicates nothing: no
			// key the target passed on would have stopped it.
			again = append(again, fmt.Sprintf("the %s %s was %s %d times over SMTP", k.fake, k.kind, madeVerb(k), len(es)))
			overSMTP = true
			smtpAgain++
			continue
		}
		if len(es) == 1 {
			// A keyed call made once, or the target's own record of the
			// intent (an observer's): the intent itself was not repeated.
			if es[0].Key != "" || es[0].Observed {
				once = append(once, "the "+k.fake+" "+k.kind+" was "+madeVerb(k)+" once")
			}
			continue
		}
		if es[0].Observed {
			// The target's own record repeated: the intent itself ran
			// again, whatever its downstream calls were given.
			return ""
		}
		keys := map[string]bool{}
		for _, e := range es {
			keys[e.Key] = true
		}
		what := fmt.Sprintf("the %s %s was %s %d times", k.fake, k.kind, madeVerb(k), len(es))
		switch {
		case keys[""]:
			again = append(again, what+": the "+k.fake+" "+callNoun(k)+" was given no idempotency key")
		case len(keys) > 1:
			again = append(again, what+": the "+k.fake+" "+callNoun(k)+" was given a new idempotency key on each try")
		default:
			return "" // the same key each time: the downstream did not de-duplicate it
		}
	}
	if len(once) == 0 || len(again) == 0 {
		return ""
	}
	advice := "; pass it a key derived from the request's key"
	switch {
	case overSMTP && len(again) > smtpAgain:
		advice += ", and for the messages: " + causeSMTP
	case overSMTP:
		advice = "; " + causeSMTP
	}
	return strings.Join(once, " and ") + " but " + strings.Join(again, ", and ") + advice
}

// causeSMTP is why a message sent over SMTP repeated, and what stops it.
const causeSMTP = "SMTP carries no idempotency key and de-duplicates nothing, whatever header a message carries: " +
	"a retry must skip a message recorded as sent under the request's key, and only a send API that takes an idempotency key " +
	"closes the gap between sending a message and recording it"

// keyless reports whether every effect in es came over a channel that
// takes no idempotency key (SMTP): a key it carries, such as a
// Message-ID, is evidence, not a request to de-duplicate.
func keyless(es []fakes.Effect) bool {
	for _, e := range es {
		if e.Detail["via"] != "smtp" {
			return false
		}
	}
	return len(es) > 0
}

// smtpCause explains a duplicate among effs that repeated over SMTP alone:
// "" when another kind of effect repeated too, or none did.
func smtpCause(effs []fakes.Effect) string {
	order, byKind := groupByKind(effs)
	var what string
	for _, k := range order {
		es := byKind[k]
		switch {
		case len(es) < 2:
		case !keyless(es) || what != "":
			return ""
		default:
			what = fmt.Sprintf("the %s %s was %s %d times over SMTP", k.fake, k.kind, madeVerb(k), len(es))
		}
	}
	if what == "" {
		return ""
	}
	return what + ": " + causeSMTP
}

// madeVerb says how an effect of kind k comes about: a charge is made, a
// message sent, a delivery delivered; any other is recorded.
func madeVerb(k effectKind) string {
	switch k.kind {
	case "charge", "refund", "payment":
		return "made"
	case "message", "email":
		return "sent"
	case "delivery":
		return "delivered"
	}
	return "recorded"
}

// callNoun names the downstream call that causes an effect of kind k.
func callNoun(k effectKind) string {
	switch madeVerb(k) {
	case "sent":
		return "send"
	case "made":
		return k.kind + " request"
	case "delivered":
		return "delivery"
	}
	return "call"
}

// againPhrase says what a retry that caused effs once more did: "charged
// again" for a payments charge, else the kind of effect that repeated,
// e.g. "sent an email message again".
func againPhrase(effs []fakes.Effect) string {
	order, byKind := groupByKind(effs)
	var parts []string
	for _, k := range order {
		if len(byKind[k]) < 2 {
			continue
		}
		if k.kind == "charge" {
			return "charged again"
		}
		parts = append(parts, madeVerb(k)+" "+article(k.fake)+" "+k.fake+" "+k.kind+" again")
	}
	if len(parts) == 0 {
		return "caused an effect again"
	}
	return strings.Join(parts, " and ")
}

// article is "an" before a vowel, else "a".
func article(w string) string {
	if w != "" && strings.ContainsRune("aeiouAEIOU", rune(w[0])) {
		return "an"
	}
	return "a"
}

// effectAttempts are the attempts at in during which one of its effects
// was recorded (by the ledger's sequence numbers); all of a burst's copies
// when the effect came during the burst.
func effectAttempts(r *record.Record, in *record.Intent) []*record.Attempt {
	var out []*record.Attempt
	effs := r.EffectsOf(in)
	for i := range in.Attempts {
		a := &in.Attempts[i]
		if a.DryRun {
			continue
		}
		for _, e := range effs {
			if e.Seq > a.LedgerBefore && e.Seq <= a.LedgerAfter {
				out = append(out, a)
				break
			}
		}
	}
	return out
}

// distinct lists the non-empty values of name over as, sorted.
func distinct(as []*record.Attempt, name func(*record.Attempt) string) []string {
	seen := map[string]bool{}
	var out []string
	for _, a := range as {
		if n := name(a); n != "" && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// overlapping reports whether any two of as ran at once.
func overlapping(as []*record.Attempt) bool {
	for i := range as {
		for j := i + 1; j < len(as); j++ {
			if as[i].Start.Before(as[j].End) && as[j].Start.Before(as[i].End) {
				return true
			}
		}
	}
	return false
}

// sharedAcross reports whether the record shows op's key store shared
// across what name tells apart (instances, sessions): a retry after a
// success, alone, served by another than the success, replayed without a
// new effect, and none caused one.
func sharedAcross(r *record.Record, op string, name func(*record.Attempt) string) bool {
	shared, _ := across(r, op, name)
	return shared
}

// keptApart reports whether the retries of op one at a time show that
// what name tells apart (instances, sessions) keeps keys apart: a retry
// served by another than the one that answered the key first acted again.
func keptApart(r *record.Record, op string, name func(*record.Attempt) string) bool {
	_, apart := across(r, op, name)
	return apart
}

// across reads op's retries one at a time, without a fault, served by
// another (as name tells them apart) than the attempt that first
// succeeded under the key, or first acted and lost only its reply
// (replyLostOnly): shared, when one was answered without acting again and
// none acted again; apart, when one acted again.
func across(r *record.Record, op string, name func(*record.Attempt) string) (shared, apart bool) {
	for i := range r.Intents {
		in := &r.Intents[i]
		if in.Operation != op || in.Key == "" {
			continue
		}
		var first *record.Attempt
		for j := range in.Attempts {
			a := &in.Attempts[j]
			if first == nil && replyLostOnly(a) && causedEffect(r, in, a) {
				// The target finished and acted; only its reply was lost.
				first = a
				continue
			}
			if a.Burst || a.DryRun || a.Fault != "" {
				continue
			}
			if first == nil {
				if a.Outcome == record.OK {
					first = a
				}
				continue
			}
			if name(a) == "" || name(a) == name(first) {
				continue
			}
			if causedEffect(r, in, a) {
				return false, true // another served it, and charged again
			}
			if a.Outcome == record.OK {
				shared = true
			}
		}
	}
	return shared, false
}

// replyLostOnly reports whether a is a lone attempt (no burst's copy, no
// dry run) whose fault let the target finish and then lost its reply on
// the way back (a reset, a lost response): the target's store is then as
// after a success, and the retry that follows tests it as a retry after
// a success does.
func replyLostOnly(a *record.Attempt) bool {
	return !a.Burst && !a.DryRun && (a.Fault == faults.NameReset || a.Fault == faults.NameLostResponse)
}

// causedEffect reports whether one of in's effects was recorded during a.
func causedEffect(r *record.Record, in *record.Intent, a *record.Attempt) bool {
	for _, e := range r.EffectsOf(in) {
		if e.Seq > a.LedgerBefore && e.Seq <= a.LedgerAfter {
			return true
		}
	}
	return false
}

// DuplicateCause explains, from the evidence of who served them, why the
// attempts at in (one key) caused more than one effect; "" when the
// evidence does not say. The checks put it in their findings' messages.
func DuplicateCause(r *record.Record, in *record.Intent) string { return duplicateCause(r, in) }

// causeSuffix is "; " and why in's attempts duplicated, when the evidence
// says; "" otherwise.
func causeSuffix(r *record.Record, in *record.Intent) string {
	if c := duplicateCause(r, in); c != "" {
		return "; " + c
	}
	return ""
}

// withCause puts cause where msg says guess.
func withCause(msg, guess, cause string) string {
	return strings.Replace(msg, guess, ": "+cause, 1)
}
