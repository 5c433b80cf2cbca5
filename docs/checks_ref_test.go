package docs_test

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/harness"
)

// checksPage is reference/checks.md: the rubric (checks.Rubric) and every
// registered check (harness.Checks), with what a target needs for the
// check to apply, worked out by asking the check itself.
func checksPage(t *testing.T) string {
	caps := fieldDocs(typeDoc(packageDoc(t, "../record"), "Capabilities"))
	var b strings.Builder
	b.WriteString("# Checks and rubric\n\n")
	b.WriteString("Every check of this version, in report order, and the rubric that turns their findings into a score. " +
		"How the checks judge a run, and the severity of what each finds, is in [Checks, explained](../explanations/checks.md); " +
		"why the levels are what they are, in [The rubric](../explanations/rubric.md).\n\n")

	b.WriteString("## Rubric\n\n")
	b.WriteString("A target's score is the highest level whose condition holds: no finding of the severity the level forbids " +
		"(or worse), and every check the level needs has run (not skipped). A target that reaches no level scores 0.\n\n")
	var rows [][]string
	for _, l := range checks.Rubric() {
		rows = append(rows, []string{fmt.Sprint(l.Level), sentence(l.Condition), fmt.Sprintf("%s or worse", l.Forbids), list(l.Needs)})
	}
	b.WriteString(table([]string{"level", "condition", "forbids a finding", "needs these checks to have run"}, rows))

	b.WriteString("\n## Checks\n\n")
	b.WriteString("*Applies to* names what a target must offer for the check to apply (else it is skipped as not applicable and does " +
		"not hold the score down); *judges* names the fault classes whose retries the check owns. An *optional* check may be " +
		"skipped for want of something to test (a fault the target cannot take, a second mutating operation) without holding " +
		"the score below its level; its findings still count.\n\n")
	rows = nil
	for _, c := range harness.Checks() {
		var classes []string
		for _, fc := range c.Faults {
			classes = append(classes, string(fc))
		}
		opt := ""
		if c.Optional {
			opt = "optional"
		}
		rows = append(rows, []string{code(c.ID), fmt.Sprint(c.Level), sentence(c.Property), needs(c), list(classes), opt})
	}
	b.WriteString(table([]string{"id", "level", "property", "applies to", "judges", ""}, rows))

	b.WriteString("\n### Target capabilities\n\n")
	b.WriteString("What an adapter says its target can do (`harness.Capabilities`); the harness adds what the adapter's " +
		"interfaces show.\n\n")
	rows = nil
	for _, f := range capabilityFields() {
		rows = append(rows, []string{code(f.name), caps[f.field]})
	}
	b.WriteString(table([]string{"capability", "meaning"}, rows))
	return b.String()
}

// capField is one field of harness.Capabilities by its JSON name.
type capField struct{ field, name string }

func capabilityFields() []capField {
	var out []capField
	typ := reflect.TypeFor[harness.Capabilities]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		out = append(out, capField{f.Name, name})
	}
	return out
}

// needs says which capabilities the check needs to apply: those without
// which its Applies rule says no, starting from a target that has them
// all but those that rule it out (the capabilities with which it says
// no, which are named too).
func needs(c checks.Invariant) string {
	if c.Applies == nil {
		return "every target"
	}
	all := func() reflect.Value {
		v := reflect.New(reflect.TypeFor[harness.Capabilities]()).Elem()
		for i := range v.NumField() {
			switch f := v.Field(i); f.Kind() {
			case reflect.Bool:
				f.SetBool(true)
			case reflect.Int:
				f.SetInt(8)
			}
		}
		v.FieldByName("Profile").SetString(harness.ProfileIETFDraft)
		return v
	}
	applies := func(v reflect.Value) bool { return c.Applies(v.Interface().(harness.Capabilities)) }
	name := func(f capField) string {
		if f.field == "Profile" {
			return code(f.name + ": " + harness.ProfileIETFDraft)
		}
		return code(f.name)
	}
	var without []capField
	if !applies(all()) {
		for _, f := range capabilityFields() {
			v := all()
			v.FieldByName(f.field).SetZero()
			if applies(v) {
				without = append(without, f)
			}
		}
	}
	base := func() reflect.Value {
		v := all()
		for _, f := range without {
			v.FieldByName(f.field).SetZero()
		}
		return v
	}
	if !applies(base()) {
		return "no target (it never applies)"
	}
	var with, not []string
	for _, f := range without {
		not = append(not, name(f))
	}
	for _, f := range capabilityFields() {
		if slices.Contains(without, f) {
			continue
		}
		v := base()
		v.FieldByName(f.field).SetZero()
		if !applies(v) {
			with = append(with, name(f))
		}
	}
	switch {
	case len(with) == 0 && len(not) == 0:
		return "every target"
	case len(not) == 0:
		return "targets with " + strings.Join(with, ", ")
	case len(with) == 0:
		return "targets without " + strings.Join(not, ", ")
	}
	return "targets with " + strings.Join(with, ", ") + ", without " + strings.Join(not, ", ")
}

// faultClasses are every class a fault can have, for the faults page.
var faultClasses = []faults.Class{faults.ClassClient, faults.ClassProxy, faults.ClassDownstream, faults.ClassDownstreamAmbiguous, faults.ClassCrash}
