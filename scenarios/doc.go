// Package scenarios generates idemcheck's trials with pgregory.net/rapid:
// short scripts of intents — which operation, which key policy (a fresh
// key, the same key again later, the same key with another payload, a
// twin with another key, no key), which fault on the first attempt, which
// retry policy (retry until done, or give up), a restart of the target
// before a step, a burst of copies, steps that start together (Step.With:
// several intents in flight at once) — that the harness runs against a
// target and judges with its checks. Fixed probes find the bugs their
// authors thought of; generated trials find the rest: a key evicted from a
// small cache by other intents and then retried, a crash that follows a
// 409, state kept per server that two keys in flight mix up.
//
// A [Trial] is plain data (JSON), so a failing one can be saved, replayed and
// printed as a readable step list. [Gen] draws trials (the harness draws
// each from a seed of its own with the generator's Example, so no
// process-wide setting of rapid is involved); generators put the simplest
// choice first (a fresh key, no fault, retry until done), and the harness
// shrinks a failing trial to the fewest, simplest steps that still fail.
// What costs a restart of the target is drawn less often: a restart before
// one step in sixteen, a fault that acts on the whole target (kills it,
// restarts its database or fails every call in flight: Space.Alone) a
// quarter as often as one that leaves it to the other calls.
//
// The package knows nothing of targets: harness imports it, runs trials
// (harness.Verify with harness.WithTrials, harness.Check in go test) and
// scores what they show.
package scenarios
