package harness

import "github.com/idemcheck/idemcheck/record"

// The record's vocabulary that adapters use, under the names they know it
// by in this package: the types are package record's.
type (
	// Outcome is record.Outcome: what an attempt's caller can know.
	Outcome = record.Outcome
	// Operation is record.Operation: one thing a target can do.
	Operation = record.Operation
	// Annotations is record.Annotations: what an operation claims.
	Annotations = record.Annotations
	// Input is record.Input: how to generate an input value.
	Input = record.Input
	// TargetInfo is record.TargetInfo: what a target says of itself.
	TargetInfo = record.TargetInfo
	// Capabilities is record.Capabilities: what a target can do.
	Capabilities = record.Capabilities
	// Call is record.Call: one attempt as the adapter receives it.
	Call = record.Call
	// Reply is record.Reply: what the adapter saw of an attempt.
	Reply = record.Reply
	// TargetResult is record.TargetResult: what a run learned of a target.
	TargetResult = record.TargetResult
)

// The outcomes of an attempt (see record.Outcome).
const (
	OK   = record.OK
	Fail = record.Fail
	Info = record.Info
)

// ReplyCut is record.ReplyCut: how the Error of an attempt whose reply
// body was longer than idemcheck keeps begins.
const ReplyCut = record.ReplyCut

// ReplyUnfinished is record.ReplyUnfinished: how the Error of an attempt
// whose reply's body did not arrive whole begins.
const ReplyUnfinished = record.ReplyUnfinished

// The statuses of a check's verdict that skip or fail it (see
// record.Status).
const (
	StatusFail = record.StatusFail
	StatusSkip = record.StatusSkip
)
