package config

import (
	"slices"
	"testing"
)

// The table of which field belongs to which kind names fields by their
// YAML names: a misspelt entry would silently allow a field everywhere.
func TestTargetFieldsNameRealFieldsAndKinds(t *testing.T) {
	for field, ks := range targetFields {
		if !slices.Contains(targetFieldNames, field) {
			t.Errorf("targetFields names %q, which Target does not have (fields: %v)", field, targetFieldNames)
		}
		for _, k := range ks {
			if !slices.Contains(kinds, k) {
				t.Errorf("targetFields[%q] names kind %q, which is not one of %v", field, k, kinds)
			}
		}
	}
	for field, byKind := range kindHints {
		for k := range byKind {
			if fieldOf(field, k) {
				t.Errorf("kindHints[%q][%q]: the field belongs to that kind, so the hint is never shown", field, k)
			}
		}
	}
}
