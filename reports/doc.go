// Package reports renders a harness.Result for machines and for people.
//
// The JSON report (schema idemcheck.report/v1) is a contract: fields are
// only ever added within a schema version, and it is golden-tested. The text
// report is for people and may change between versions. Every file is
// written atomically (a temporary file renamed into place), so an
// interrupted run never leaves a half-written report.
package reports
