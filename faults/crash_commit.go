package faults

// Names of the crash faults at a dependency's commit.
const (
	NameCrashBeforeCommit = "crash-before-commit"
	NameCrashAfterCommit  = "crash-after-commit"
)

// The crash points at a declared dependency's commit (see Crash).
const (
	// BeforeCommit: when the target's commit that carries the intent's
	// write is about to reach its database; the commit never does, and
	// the database rolls back.
	BeforeCommit CrashPoint = "before-commit"
	// AfterCommit: once the database has committed, before its answer
	// reaches the target: the effect is durable and the target never
	// learns it, nor answers its client.
	AfterCommit CrashPoint = "after-commit"
)

// OnCommit reports whether p is a crash point at a dependency's commit,
// which only a target that declares its database can take.
func OnCommit(p CrashPoint) bool { return p == BeforeCommit || p == AfterCommit }
