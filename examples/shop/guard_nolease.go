package shop

// newNoLeaseGuard is a JSONL key store with an in_progress state and no
// expiry: the key is marked in_progress (durably) before the charge and
// complete after it, but an in_progress mark has no lease. It never expires
// and is never claimed again, whoever wrote it. While the process lives
// that is the correct 409; once a process dies between the claim and the
// completion (a crash after the charge, or before it) the key answers 409
// "in flight" forever, after any number of restarts. Nothing is charged
// twice, the intent is simply stuck. The key is passed downstream, and a
// failed charge still releases the key (the process is alive to do it).
// Used by the "lock-no-lease" profile.
func newNoLeaseGuard(j *journal, boot string) *atomicGuard {
	g := newAtomicGuard(j, boot)
	g.reclaimStale = false // the flaw
	return g
}
