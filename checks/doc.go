// Package checks holds idemcheck's checks: the properties it verifies
// about a target ("the same key sent twice causes one effect"), each an
// [Invariant] declared whole in its own check_*.go file, and the rubric
// ([Rubric], [Score]) that turns their verdicts into a score of 0 to 3.
//
// A check says what it needs done (its [Probe] values, scripts of
// [Step] values planned against each operation of a target by a
// [Planner]) and how it judges what was done: its Eval reads a
// record.Record, and nothing else. Everything the harness and the reports
// know about checks is derived from the registered ones ([Checks]): the
// probe plan, the rubric's needs, which check owns the retries after each
// class of fault, the skip notes. CREATING_CHECKS.md is the contract of a
// new check, and creating_checks_test.go its worked example.
//
// The package sees only the record: it imports package record (and the
// faults and fakes whose names and effects a record holds), never the
// runner, so a record read back from a result.json is judged exactly as
// the one a run just made.
package checks
