// Package webhookconfig is the webhook kind of the configuration file:
// its section (Section, with its signature and events), how the section
// is checked and given its defaults, and the harness.Spec it becomes
// through package targets/webhook (Section.Spec). ConfigKind registers it
// (config.Builtin).
//
// It is a package of its own so that a Go test that delivers events to a
// handler with targets/webhook (Spec) does not build what the
// configuration file needs: its schema, the observers and their database
// drivers.
package webhookconfig
