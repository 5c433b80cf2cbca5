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
// so that an editor or a CI log can jump to it. To keep those positions, the
// file is first parsed into a yaml.Node tree and then decoded by a small
// reflective walker of this package (decode.go) instead of yaml.Unmarshal;
// the walker records the position of every value it decodes by its path,
// and validation (validate.go) reports against the same paths. A File keeps
// those positions, so that later consumers, such as the fault registry
// decoding FaultSpec.Settings, can report their own problems with
// File.Errorf.
//
// YAML anchors, aliases and merge keys ("<<: *base") work as in yaml.v3;
// top-level keys starting with "x-" are ignored, to hold anchors. Every
// other unknown field is an error, as are duplicate keys and a second
// document in the file, which YAML tools often accept silently.
//
// Strings may contain placeholders such as {{port}} or {{marker}}, which
// the harness fills in at run time; Parse checks that each one is allowed
// where it is used, and Placeholders lists them. {{env.NAME}} takes a
// value from idemcheck's environment where a secret belongs (urls,
// headers, env, a dsn; envvars.go): Parse reads it and refuses an unset
// variable, Specs fills it in, and File.Secrets lists it, with the other
// values that reports must not show.
//
// Relative file paths are taken from the file's directory (BaseDir;
// filepaths.go), wherever idemcheck runs; Specs and CheckPrograms resolve
// them, and the File keeps what was written.
//
// [Schema] is the file's JSON Schema, for editors, generated from the
// structs of this package and their doc comments by its tests.
//
// [File.Specs] turns a validated file into what [harness.Verify] runs: one
// [harness.Spec] per target, built by the target kind's adapter, with the
// fakes the file configures, and the options (faults, checks, retries) it
// sets. A Go program that loads a file and calls Specs gets exactly what
// idemcheck run gets. A new target kind adds its case to the switch in
// File.Specs (specs.go), next to its validation (validate_kinds.go and a
// validate_KIND.go). Loading, parsing and building never start or contact
// a target: the specs start it when the harness runs them.
//
// [Starter] writes the starter configuration of idemcheck init from what a
// command-line tool's help says.
package config
