// Package section is what a kind of target builds its part of the
// configuration file from: the fields every target has (Common), the
// types several kinds share (Start, Locator, Input, Duration, Operation…),
// the Checker its hand-written checks report to, and the Builder its
// harness.Spec is made with. A kind is a Kind descriptor whose New
// returns its own struct (see targets/CREATING_KINDS.md); package config
// lists the kinds, decodes each target into its kind's struct, checks it
// with the JSON Schema generated from the structs (package
// config/schema), then calls its Check, Defaults and Spec.
//
// Paths name a value the way a reader would: fields joined by dots, list
// items by index, map keys as fields unless they need quoting:
// targets[0].operations[1].headers.X-Trace, faults[2]["a.b"].
package section
