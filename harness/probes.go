package harness

import (
	"fmt"
	"sort"

	"github.com/idemcheck/idemcheck/faults"
)

// step is one intent a probe makes, and how to attempt it.
type step struct {
	role Role
	op   string
	// keyFrom reuses the key of an earlier step of the probe (-1: fresh).
	keyFrom int
	// inputsFrom reuses the inputs of an earlier step (-1: fresh).
	inputsFrom int
	// change alters one input of the reused inputs.
	change bool
	noKey  bool
	dryRun bool
	// fault is injected into the first attempt.
	fault faults.Fault
	// repeat is how many attempts are sent whatever their outcome.
	repeat int
	// untilOK retries after the first attempt until an attempt is ok.
	untilOK bool
	// burst sends that many copies at once as the first attempts.
	burst int
	// badSignature sends the first attempt with a wrong signature.
	badSignature bool
}

// probe is a short script of intents that gives some checks something to
// judge. Checks judge every intent of the record by its role, so probes and
// (later) generated scenarios feed the same checks.
type probe struct {
	name   string
	serves []string
	steps  []step
	// reversed delivers the steps' first attempts newest first, together.
	reversed bool
}

func fresh(role Role, op string) step {
	return step{role: role, op: op, keyFrom: -1, inputsFrom: -1, repeat: 1}
}

// planProbes lists the probes needed by the enabled checks.
func planProbes(info TargetInfo, enabled map[string]bool, fs []faults.Fault, supports func(faults.Fault) bool, burst int, signer, reorderer bool) []probe {
	wants := func(ids ...string) bool {
		for _, id := range ids {
			if enabled[id] {
				return true
			}
		}
		return false
	}
	var ps []probe
	for _, op := range info.Operations {
		if !op.Mutating {
			continue
		}
		if wants(CheckRetrySequential, CheckReplayConsistent, CheckEffectField, CheckExactlyOnce) {
			s := fresh(RolePlain, op.Name)
			s.repeat = 2
			ps = append(ps, probe{name: "sequential retry", serves: []string{CheckRetrySequential, CheckReplayConsistent, CheckEffectField}, steps: []step{s}})
		}
		for _, f := range fs {
			check := faultCheck(f)
			if !wants(check) || !supports(f) {
				continue
			}
			s := fresh(RolePlain, op.Name)
			s.fault = f
			s.untilOK = true
			ps = append(ps, probe{name: "retry after " + f.Name(), serves: []string{check}, steps: []step{s}})
		}
		if wants(CheckConcurrentDuplicates) && burst > 1 {
			s := fresh(RoleBurst, op.Name)
			s.burst = burst
			s.untilOK = true
			ps = append(ps, probe{name: fmt.Sprintf("burst of %d", burst), serves: []string{CheckConcurrentDuplicates}, steps: []step{s}})
		}
		if wants(CheckKeyMismatch) && len(op.Inputs) > 0 {
			b := fresh(RoleMismatch, op.Name)
			b.keyFrom, b.inputsFrom, b.change = 0, 0, true
			ps = append(ps, probe{name: "key reuse with another payload", serves: []string{CheckKeyMismatch}, steps: []step{fresh(RolePlain, op.Name), b}})
		}
		if wants(CheckKeyRequired) {
			s := fresh(RoleNoKey, op.Name)
			s.noKey, s.repeat = true, 2
			ps = append(ps, probe{name: "no key", serves: []string{CheckKeyRequired}, steps: []step{s}})
		}
		if wants(CheckKeyDistinct) {
			b := fresh(RoleTwin, op.Name)
			b.inputsFrom = 0
			ps = append(ps, probe{name: "distinct keys, same inputs", serves: []string{CheckKeyDistinct}, steps: []step{fresh(RolePlain, op.Name), b}})
		}
		if wants(CheckWebhookSignature) && signer {
			bad := fresh(RoleBadSignature, op.Name)
			bad.badSignature = true
			genuine := fresh(RoleAfterBadSignature, op.Name)
			genuine.keyFrom, genuine.inputsFrom, genuine.untilOK = 0, 0, true
			ps = append(ps, probe{name: "forged, then genuine delivery", serves: []string{CheckWebhookSignature}, steps: []step{bad, genuine}})
		}
		if wants(CheckWebhookOrder) && reorderer {
			var steps []step
			for i := 0; i < 3; i++ {
				s := fresh(RoleOutOfOrder, op.Name)
				s.untilOK = true
				steps = append(steps, s)
			}
			ps = append(ps, probe{name: "three events, delivered newest first", serves: []string{CheckWebhookOrder}, steps: steps, reversed: true})
		}
		if wants(CheckDryRun) && op.DryRun {
			d := fresh(RoleDryRun, op.Name)
			d.dryRun = true
			real := fresh(RoleAfterDryRun, op.Name)
			real.keyFrom, real.inputsFrom = 0, 0
			ps = append(ps, probe{name: "dry run, then the real request", serves: []string{CheckDryRun}, steps: []step{d, real}})
		}
	}
	if wants(CheckSafeReadOnly) {
		for _, op := range info.Operations {
			if op.Mutating {
				continue
			}
			s := fresh(RoleRead, op.Name)
			s.repeat = 2
			ps = append(ps, probe{name: "safe call", serves: []string{CheckSafeReadOnly}, steps: []step{s}})
		}
	}
	return ps
}

// faultCheck is the check that owns intents retried after f.
func faultCheck(f faults.Fault) string {
	switch faults.ClassOf(f) {
	case faults.ClassCrash:
		return CheckCrashRecovery
	case faults.ClassDownstreamAmbiguous:
		return CheckDownstream
	}
	return CheckRetryAfterFault
}

func sortedInputNames(op Operation) []string {
	names := make([]string, 0, len(op.Inputs))
	for n := range op.Inputs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
