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
// where it is used, and Placeholders lists them.
//
// This package is a leaf: it depends on no other idemcheck package, and it
// does nothing but read and check; it never starts or contacts a target.
package config
