package harness

import "github.com/idemcheck/idemcheck/record"

// The vocabulary of a run's record, kept here under its old names: the
// types live in package record.
type (
	Outcome        = record.Outcome
	Operation      = record.Operation
	Annotations    = record.Annotations
	Input          = record.Input
	TargetInfo     = record.TargetInfo
	Capabilities   = record.Capabilities
	Call           = record.Call
	Reply          = record.Reply
	Role           = record.Role
	Intent         = record.Intent
	Attempt        = record.Attempt
	Record         = record.Record
	Severity       = record.Severity
	Status         = record.Status
	Finding        = record.Finding
	Evidence       = record.Evidence
	CheckResult    = record.CheckResult
	ScoreResult    = record.ScoreResult
	Gap            = record.Gap
	TargetResult   = record.TargetResult
	Result         = record.Result
	Meta           = record.Meta
	Gate           = record.Gate
	TargetGate     = record.TargetGate
	ScoreChange    = record.ScoreChange
	FindingKey     = record.FindingKey
	TargetDiff     = record.TargetDiff
	ScenarioResult = record.ScenarioResult
	ReplayedTrial  = record.ReplayedTrial
)

const (
	OK   = record.OK
	Fail = record.Fail
	Info = record.Info

	RolePlain             = record.RolePlain
	RoleNoKey             = record.RoleNoKey
	RoleMismatch          = record.RoleMismatch
	RoleTwin              = record.RoleTwin
	RoleDryRun            = record.RoleDryRun
	RoleAfterDryRun       = record.RoleAfterDryRun
	RoleRead              = record.RoleRead
	RoleBurst             = record.RoleBurst
	RoleBadSignature      = record.RoleBadSignature
	RoleOtherOperation    = record.RoleOtherOperation
	RoleOtherCaller       = record.RoleOtherCaller
	RoleAfterBadSignature = record.RoleAfterBadSignature
	RoleOutOfOrder        = record.RoleOutOfOrder
	RoleHinted            = record.RoleHinted
	RoleLate              = record.RoleLate
	RoleFiller            = record.RoleFiller

	Critical = record.Critical
	Major    = record.Major
	Minor    = record.Minor

	StatusPass = record.StatusPass
	StatusFail = record.StatusFail
	StatusSkip = record.StatusSkip

	ScoreSame    = record.ScoreSame
	ScoreLower   = record.ScoreLower
	ScoreHigher  = record.ScoreHigher
	ScoreUnknown = record.ScoreUnknown

	ResultSchema = record.ResultSchema
	ResultFile   = record.ResultFile
)

// DefaultCapabilities is record.DefaultCapabilities.
func DefaultCapabilities() Capabilities { return record.DefaultCapabilities() }

// ReadResult is record.ReadResult.
func ReadResult(b []byte) (*Result, error) { return record.ReadResult(b) }

// ReadResultFile is record.ReadResultFile.
func ReadResultFile(path string) (*Result, error) { return record.ReadResultFile(path) }
