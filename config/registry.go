package config

import (
	"slices"

	"github.com/idemcheck/idemcheck/config/section"
	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/fakes/email"
	"github.com/idemcheck/idemcheck/fakes/payments"
	"github.com/idemcheck/idemcheck/fakes/webhooks"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/harness"
	clitarget "github.com/idemcheck/idemcheck/targets/cli"
	"github.com/idemcheck/idemcheck/targets/consumer"
	"github.com/idemcheck/idemcheck/targets/container"
	"github.com/idemcheck/idemcheck/targets/http/httpconfig"
	"github.com/idemcheck/idemcheck/targets/mcp/mcpconfig"
	"github.com/idemcheck/idemcheck/targets/webhook/webhookconfig"
)

// Registry is what a configuration file may name: the kinds of target,
// the fakes and the faults. Everything the file's schema, its checks and
// its specs know of them derives from it. Builtin returns idemcheck's
// own; a program that adds a kind or a fake makes a Registry with it and
// calls its Parse.
type Registry struct {
	// Kinds are the kinds of target, in the order messages list them;
	// the first is the one a target without a (known) kind is checked
	// as.
	Kinds []section.Kind
	// Fakes are the fakes a file may configure, in the order they start.
	Fakes []fakes.Descriptor
	// Faults are the faults a file may name.
	Faults *faults.Registry
	// DefaultFaults are the faults injected when a file has no faults
	// section.
	DefaultFaults []string
}

// Builtin returns the kinds, fakes and faults of this idemcheck. Adding a
// kind or a fake is one line here (see targets/CREATING_KINDS.md and
// fakes/CREATING_FAKES.md).
func Builtin() *Registry {
	return &Registry{
		Kinds: []section.Kind{
			httpconfig.ConfigKind,
			clitarget.ConfigKind,
			webhookconfig.ConfigKind,
			container.ConfigKind,
			mcpconfig.ConfigKind,
			consumer.ConfigKind,
		},
		Fakes: []fakes.Descriptor{
			payments.Descriptor,
			email.Descriptor,
			webhooks.Descriptor,
		},
		Faults:        builtinFaults(),
		DefaultFaults: harness.DefaultFaultNames,
	}
}

// builtinFaults are the faults of package faults and the redelivery
// faults of consumer targets.
func builtinFaults() *faults.Registry {
	r := faults.Builtin()
	consumer.RegisterFaults(r)
	return r
}

// kind returns the kind called name.
func (r *Registry) kind(name string) (section.Kind, bool) {
	i := slices.IndexFunc(r.Kinds, func(k section.Kind) bool { return k.Name == name })
	if i < 0 {
		return section.Kind{}, false
	}
	return r.Kinds[i], true
}

// fake returns the fake called name.
func (r *Registry) fake(name string) (fakes.Descriptor, bool) {
	i := slices.IndexFunc(r.Fakes, func(d fakes.Descriptor) bool { return d.Name == name })
	if i < 0 {
		return fakes.Descriptor{}, false
	}
	return r.Fakes[i], true
}

// kindNames are the kinds' names, in order.
func (r *Registry) kindNames() []string {
	var out []string
	for _, k := range r.Kinds {
		out = append(out, k.Name)
	}
	return out
}

// fakePlaceholders are the placeholders of every fake, in the order of
// the fakes: each one's url first, then the others of fakes that have
// more (fakes.email.smtp).
func (r *Registry) fakePlaceholders() []section.FakePlaceholder {
	var out []section.FakePlaceholder
	for pass := range 2 {
		for _, d := range r.Fakes {
			for i, e := range d.Endpoints {
				if (i == 0) == (pass == 0) {
					out = append(out, section.FakePlaceholder{Name: "fakes." + d.Name + "." + e.Placeholder, Fake: d.Name})
				}
			}
		}
	}
	return out
}
