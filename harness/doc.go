// Package harness is what a Go program or test opens to run idemcheck:
// [Verify] tests targets and scores each 0–3, [Check] does it inside go
// test, and [Merge], [Compare] and [ApplyGate] re-score a run's shards,
// compare it with a baseline and hold it to a minimum score.
//
// A program describes each target with a [Spec]: the fakes it calls, how
// to start it (into a [Target], given an [Env]), the observers that count
// its effects in its own data ([EffectObserver]). Adapters (targets/http,
// targets/cli, …) implement Target and the abilities a target may have
// besides ([Crasher], [Burster], [Signer], [Reorderer], [Budgeted],
// [FaultExplainer], [Disrupter], [Watched]), and say what it can do in its
// [record.TargetInfo.Capabilities]. [Options], set with the With…
// functions, tune a run.
//
// An intent is one logical request meant to happen exactly once; each try
// at it is an attempt, with the same idempotency key, perhaps under a
// fault, whose outcome is ok, fail or info (unknown). Each intent carries
// a unique marker that the target passes to its downstream calls, so the
// fakes attribute every side effect to the intent that caused it. The
// probes the checks plan, lists of steps, and the trials the scenarios
// package generates, compiled into such lists, all run through one
// interpreter, so a key reused, a fault, a retry, a restart or a pause
// means one thing wherever it comes from.
//
// The work is split by audience, every import pointing down:
//
//   - package record is the record of a run, as data: what was attempted,
//     what the target answered, what the fakes saw, the findings and the
//     scores; it is what result.json holds ([record.Result.WriteJSON],
//     [record.ReadResult]) and what reports render. This package keeps
//     the names adapters use (Call, Reply, TargetInfo, …) as aliases.
//   - package checks holds the checks, their registry, the probe plan and
//     the rubric, and sees only the record (see its CREATING_CHECKS.md).
//     This package keeps the check ids, [Checks] and [KnownCheck].
//   - harness/internal/engine runs one target at a time: its instances,
//     the probes, the generated trials, their shrinking and replays. The
//     probes run on an instance of the target of their own; the trials
//     share another, or, when every start of the target is its own
//     ([Spec.Isolated]), one per trial worker, and those start while the
//     probes' last late retries wait.
package harness
