// Package config loads and validates idemcheck's YAML configuration
// (idemcheck.yaml): the targets to test, their operations, the checks and
// faults to run and the retry policy.
//
// Load and Parse report every problem in a file at once, not just the first,
// as an Errors value sorted by line. Each *Error names the file, the line and
// column of the YAML node at fault and the field path, as in
//
//	idemcheck.yaml:12:17: targets[0].operations[1].method: unknown method "PSOT" (expected one of GET, POST, PUT, PATCH, DELETE)
//
// so that an editor or a CI log can jump to it.
//
// What a file may name is a Registry (Builtin is idemcheck's): the kinds
// of target, each a section.Kind declared by its package under targets/
// (see targets/CREATING_KINDS.md), the fakes, each a fakes.Descriptor
// declared by its package under fakes/ (see fakes/CREATING_FAKES.md), and
// the faults. A file is read in three steps. Its YAML nodes become a tree
// of JSON values (tree.go), with the position of every value and key
// recorded by path, aliases and merge keys resolved, and duplicate keys,
// alias cycles and runaway expansions refused. The JSON Schema generated
// from the registry's structs (package config/schema; schema.go) checks
// the tree, and each error its instance location maps back to a line and
// column, in the words of the rule that the struct declares. The tree is
// then decoded into File, each fake's settings and each target's kind's
// struct, unknown fields refused, and what a schema cannot say is checked
// by hand (check.go, and each kind's Check): rules across fields,
// placeholders, loopback hosts, fixed addresses, duplicate names, and the
// faults' settings, which the registry's faults decode (a fault listed
// twice too). A File keeps the positions, so that later consumers can
// report their own problems with File.Errorf.
//
// YAML anchors, aliases and merge keys ("<<: *base") work as in yaml.v3;
// top-level keys starting with "x-" are ignored, to hold anchors. Every
// other unknown field is an error, as are duplicate keys and a second
// document in the file, which YAML tools often accept silently.
//
// Strings may contain placeholders such as {{port}} or {{marker}}, which
// the harness fills in at run time; the checks say where each one is
// allowed, and Placeholders lists them. {{env.NAME}} takes a value from
// idemcheck's environment where a secret belongs (urls, headers, env, a
// dsn): Parse reads it and refuses an unset variable, Specs fills it in,
// and File.Secrets lists it, with the other values that reports must not
// show.
//
// Relative file paths are taken from the file's directory (BaseDir),
// wherever idemcheck runs; Specs and CheckPrograms resolve them, and the
// File keeps what was written.
//
// [Schema] is the file's JSON Schema as published for editors, with the
// structs' doc comments as descriptions; go generate ./config rewrites it,
// and a test fails when it no longer matches the structs.
//
// [File.Specs] turns a validated file into what [harness.Verify] runs: one
// [harness.Spec] per target, built by its kind's Spec, with the fakes the
// file configures, and the options (faults, checks, retries) it sets. A Go
// program that loads a file and calls Specs gets exactly what idemcheck
// run gets. Loading, parsing and building never start or contact a
// target: the specs start it when the harness runs them.
//
// [Starter] writes the starter configuration of idemcheck init from what a
// command-line tool's help says.
package config
