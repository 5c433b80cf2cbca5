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
	CheckReplyHonest          = checks.CheckReplyHonest
	CheckKeyMalformed         = checks.CheckKeyMalformed
)

// ProfileIETFDraft is checks.ProfileIETFDraft: the profile of a target
// that asks to be held to the Idempotency-Key draft.
const ProfileIETFDraft = checks.ProfileIETFDraft

// Profiles are checks.Profiles: the profiles a target may declare.
var Profiles = checks.Profiles

// Checks returns the checks this version implements, in report order
// (see package checks).
func Checks() []checks.Invariant { return checks.Checks() }

// KnownCheck reports whether id names a check of this version.
func KnownCheck(id string) bool { return checks.KnownCheck(id) }
