// Package record is idemcheck's record of a run, as data: what a target
// is ([TargetInfo], its [Operation] values and [Capabilities]), what was
// attempted ([Intent], each try an [Attempt] made as a [Call] and
// answered by a [Reply] whose [Outcome] is ok, fail or info), what the
// fakes saw (the ledger of a [Record]), and what was concluded
// ([Finding], [CheckResult], [ScoreResult], [TargetResult], [Result]).
//
// A Result is a stable, versioned encoding ([ResultSchema]): idemcheck
// run writes it ([Result.WriteJSON]) as result.json, and [ReadResult]
// reads it back, checked, to re-score, merge and render it. The types
// here carry no behaviour beyond reading themselves: the checks that
// judge a Record and the rubric that scores it are package checks; the
// runner that makes a Record is package harness, which every package
// reading a result can do without.
package record
