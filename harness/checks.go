package harness

import (
	"github.com/idemcheck/idemcheck/checks"
)

// The stable ids of the checks (see package checks).
const (
	CheckRetrySequential      = checks.CheckRetrySequential
	CheckRetryAfterFault      = checks.CheckRetryAfterFault
	CheckRetryLate            = checks.CheckRetryLate
	CheckConcurrentDuplicates = checks.CheckConcurrentDuplicates
	CheckCrashRecovery        = checks.CheckCrashRecovery
	CheckDownstream           = checks.CheckDownstream
	CheckKeyMismatch          = checks.CheckKeyMismatch
	CheckKeyRequired          = checks.CheckKeyRequired
	CheckKeyDistinct          = checks.CheckKeyDistinct
	CheckKeyScope             = checks.CheckKeyScope
	CheckReplayConsistent     = checks.CheckReplayConsistent
	CheckEffectField          = checks.CheckEffectField
	CheckDryRun               = checks.CheckDryRun
	CheckSafeReadOnly         = checks.CheckSafeReadOnly
	CheckExactlyOnce          = checks.CheckExactlyOnce
	CheckWebhookSignature     = checks.CheckWebhookSignature
	CheckWebhookOrder         = checks.CheckWebhookOrder
	CheckMCPReadOnlyHint      = checks.CheckMCPReadOnlyHint
	CheckMCPIdempotentHint    = checks.CheckMCPIdempotentHint
	CheckMCPAnnotations       = checks.CheckMCPAnnotations
	CheckIETFDraft            = checks.CheckIETFDraft
)

// ProfileIETFDraft is checks.ProfileIETFDraft.
const ProfileIETFDraft = checks.ProfileIETFDraft

// Profiles are checks.Profiles.
var Profiles = checks.Profiles

type (
	Invariant    = checks.Invariant
	ProbeContext = checks.ProbeContext
	Probe        = checks.Probe
	Step         = checks.Step
	Level        = checks.Level
)

// Fresh is checks.Fresh.
func Fresh(role Role, op string) Step { return checks.Fresh(role, op) }

// Checks returns the checks this version implements, in report order.
func Checks() []Invariant { return checks.Checks() }

// KnownCheck reports whether id names a check of this version.
func KnownCheck(id string) bool { return checks.KnownCheck(id) }

// Evaluate is checks.Evaluate.
func Evaluate(rec *Record) ([]CheckResult, []Finding) { return checks.Evaluate(rec) }

// Score is checks.Score.
func Score(tr *TargetResult) { checks.Score(tr) }

// Rubric is checks.Rubric.
func Rubric() []Level { return checks.Rubric() }

// NotApplicableNote is checks.NotApplicableNote.
func NotApplicableNote(kind string) string { return checks.NotApplicableNote(kind) }
