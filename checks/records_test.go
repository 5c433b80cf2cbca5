package checks_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/record"
)

// This file builds record.Record values by hand, the way the runner would
// have recorded them: intents with their roles, attempts with their ledger
// windows, and the effects the fakes saw, each attributed by marker.

// The fake and the operations of hand-built records.
const (
	paymentsFake = "payments"
	opCharge     = "charge"
	opBalance    = "balance"
)

// Shorter names for the roles, severities and faults the tables use.
const (
	plain    = record.RolePlain
	noKey    = record.RoleNoKey
	mismatch = record.RoleMismatch
	twin     = record.RoleTwin
	dryRun   = record.RoleDryRun
	afterDry = record.RoleAfterDryRun
	read     = record.RoleRead
	burstR   = record.RoleBurst
	otherOp  = record.RoleOtherOperation

	critical = record.Critical
	major    = record.Major
	minor    = record.Minor
)

// recBuilder builds a Record as a run would have made it: attempts one
// after the other, each with the ledger window it saw.
type recBuilder struct {
	rec record.Record
}

// recordOps are the operations of hand-built records: a mutating charge
// with a dry run and an input to vary, and a safe balance query.
func recordOps() []record.Operation {
	return []record.Operation{
		{Name: opCharge, Mutating: true, DryRun: true, Inputs: map[string]record.Input{"amount": {Kind: "int", Min: 1, Max: 100}}},
		{Name: opBalance},
	}
}

func newRec(ops ...record.Operation) *recBuilder {
	if len(ops) == 0 {
		ops = recordOps()
	}
	return &recBuilder{rec: record.Record{Seed: 1, Target: record.TargetInfo{Name: "shop", Kind: "func", Operations: ops}}}
}

// markerOf is the marker of the hand-built intent id.
func markerOf(id int) string { return fmt.Sprintf("idem-%016x", 0xa000+id) }

// intent adds an intent and returns its id. For a mismatch, a twin and the
// request after a dry run, related names the intent it is defined against:
// a mismatch reuses its key with another amount, a twin its amount with a
// fresh key, the request after a dry run both.
func (b *recBuilder) intent(role record.Role, op string, related ...int) int {
	id := len(b.rec.Intents) + 1
	o, _ := b.rec.Target.Operation(op)
	in := record.Intent{
		ID: id, Operation: op, Mutating: o.Mutating, Role: role, Probe: "hand-built",
		Key: fmt.Sprintf("idk-%04d", id), Marker: markerOf(id), Inputs: map[string]string{"amount": fmt.Sprint(10 + id)},
	}
	if len(related) > 0 {
		origin := b.rec.Intent(related[0])
		in.Related = origin.ID
		switch role {
		case mismatch, otherOp:
			in.Key = origin.Key
		case twin:
			in.Inputs = map[string]string{"amount": origin.Inputs["amount"]}
		case afterDry:
			in.Key = origin.Key
			in.Inputs = map[string]string{"amount": origin.Inputs["amount"]}
		}
	}
	if role == noKey {
		in.Key = ""
	}
	b.rec.Intents = append(b.rec.Intents, in)
	return id
}

func (b *recBuilder) lastSeq() int64 { return int64(len(b.rec.Ledger)) }

// record appends effects to the ledger; an effect whose Markers are nil is
// attributed to marker, one whose Fake is empty is a payments charge.
func (b *recBuilder) record(marker string, effs ...fakes.Effect) {
	for _, e := range effs {
		e.Seq = b.lastSeq() + 1
		if e.Markers == nil {
			e.Markers = []string{marker}
		}
		switch {
		case e.Fake == "":
			e.Fake, e.Kind, e.ID = paymentsFake, "charge", fmt.Sprintf("ch_%06d", e.Seq)
		case e.ID == "":
			e.ID = fmt.Sprintf("%s_%06d", e.Kind, e.Seq)
		}
		b.rec.Ledger = append(b.rec.Ledger, e)
	}
}

// try adds an attempt at intent id; effs are recorded while it runs.
func (b *recBuilder) try(id int, a record.Attempt, effs ...fakes.Effect) *recBuilder {
	in := b.rec.Intent(id)
	a.N = len(in.Attempts) + 1
	a.ID = fmt.Sprintf("att-%d-%d", id, a.N)
	a.LedgerBefore = b.lastSeq()
	b.record(in.Marker, effs...)
	a.LedgerAfter = b.lastSeq()
	in.Attempts = append(in.Attempts, a)
	return b
}

// burst adds copies released together: they share one ledger window, in
// which effs are recorded.
func (b *recBuilder) burst(id int, copies []record.Attempt, effs ...fakes.Effect) *recBuilder {
	in := b.rec.Intent(id)
	before := b.lastSeq()
	b.record(in.Marker, effs...)
	for _, a := range copies {
		a.N = len(in.Attempts) + 1
		a.ID = fmt.Sprintf("att-%d-%d", id, a.N)
		a.Burst = true
		a.LedgerBefore, a.LedgerAfter = before, b.lastSeq()
		in.Attempts = append(in.Attempts, a)
	}
	return b
}

// later records effects for intent id outside any attempt's window.
func (b *recBuilder) later(id int, effs ...fakes.Effect) *recBuilder {
	b.record(b.rec.Intent(id).Marker, effs...)
	return b
}

func (b *recBuilder) done() *record.Record { return &b.rec }

// Effects.

// mine is an effect attributed to the intent it is recorded for.
func mine() fakes.Effect { return fakes.Effect{} }

// keyed is mine, with the idempotency key the target passed downstream.
func keyed(k string) fakes.Effect { return fakes.Effect{Key: k} }

// emailed is an email message sent for the intent it is recorded for,
// with the key the target passed to the email fake ("" for none).
func emailed(k string) fakes.Effect { return fakes.Effect{Fake: "email", Kind: "message", Key: k} }

// markedBy is an effect that carries marker m.
func markedBy(m string) fakes.Effect { return fakes.Effect{Markers: []string{m}} }

// unmarked is an effect whose request carried no marker.
func unmarked() fakes.Effect { return fakes.Effect{Markers: []string{}} }

// Attempts.

// ok is a success that states effect (none when "").
func ok(status int, effect, identity string) record.Attempt {
	return record.Attempt{Reply: record.Reply{
		Outcome: record.OK, Status: status, Effect: effect, HasEffect: effect != "", Identity: identity, Forwarded: true,
		Body: fmt.Sprintf(`{"ok":true,"effect":%q,"data":{"id":%q}}`, effect, identity),
	}}
}

// failed is a definite failure, e.g. a refusal or 409.
func failed(status int) record.Attempt {
	return record.Attempt{Reply: record.Reply{Outcome: record.Fail, Status: status, Forwarded: true, Body: fmt.Sprintf(`{"ok":false,"error":"status %d"}`, status)}}
}

// unknown is an attempt whose outcome the client cannot know (a 5xx, a
// lost reply); status 0 stands for no reply at all.
func unknown(status int) record.Attempt {
	a := record.Attempt{Reply: record.Reply{Outcome: record.Info, Status: status, Forwarded: true}}
	if status == 0 {
		a.Error = "connection reset"
	} else {
		a.Body = `{"ok":false,"error":"unavailable"}`
	}
	return a
}

// under puts a under the fault called name, with its class.
func under(name string, a record.Attempt) record.Attempt {
	f, err := faults.Builtin().New(name, nil)
	if err != nil {
		panic(err)
	}
	a.Fault, a.FaultClass = name, string(faults.ClassOf(f))
	if faults.ClassOf(f) == faults.ClassCrash {
		a.Crashed = true
	}
	if _, ok := f.(faults.ProxyFault); ok && a.Forwarded && faults.ClassOf(f) == faults.ClassProxy {
		a.Withheld = true
	}
	return a
}

// notForwarded marks a as never having reached the target.
func notForwarded(a record.Attempt) record.Attempt {
	a.Forwarded, a.Withheld = false, false
	return a
}

// dry marks a as a dry-run attempt.
func dry(a record.Attempt) record.Attempt {
	a.DryRun = true
	return a
}

// Verdicts.

// verdicts evaluates rec and indexes the results and findings by check.
func verdicts(t *testing.T, rec *record.Record) (map[string]record.CheckResult, map[string][]record.Finding) {
	t.Helper()
	var (
		results  []record.CheckResult
		findings []record.Finding
	)
	require.NotPanics(t, func() { results, findings = checks.Evaluate(rec) })
	require.Len(t, results, len(checks.Checks()), "one verdict per check")
	byID := map[string]record.CheckResult{}
	for i, r := range results {
		assert.Equal(t, checks.Checks()[i].ID, r.ID, "verdicts come in report order")
		byID[r.ID] = r
	}
	found := map[string][]record.Finding{}
	for _, f := range findings {
		found[f.Check] = append(found[f.Check], f)
	}
	return byID, found
}

// describe lists findings for failure messages.
func describe(fs []record.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "\n  %s %s: %s", f.Check, f.Severity, f.Message)
	}
	return b.String()
}

func allChecks() []string {
	var ids []string
	for _, c := range checks.Checks() {
		ids = append(ids, c.ID)
	}
	return ids
}

func checksExcept(ids ...string) []string {
	var out []string
	for _, id := range allChecks() {
		if !contains(ids, id) {
			out = append(out, id)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
