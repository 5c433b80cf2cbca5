package config

import (
	"slices"
	"strings"

	"github.com/idemcheck/idemcheck/harness"
)

// profile checks a target's profile: one of the published conventions
// idemcheck can hold a target to (harness.Profiles). "ietf-draft" is the
// IETF draft "The Idempotency-Key HTTP Header Field": with it, the
// ietf.draft check judges the status codes the draft names.
func (v *validator) profile(path, p string) {
	if !slices.Contains(harness.Profiles, p) {
		v.errorf(path, "unknown profile %q (known profiles: %s)", p, strings.Join(harness.Profiles, ", "))
	}
}
