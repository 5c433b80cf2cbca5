// Package fakes holds what every downstream fake shares: the ledger of side
// effects, the markers that attribute each effect to the intent that caused
// it, and the rules by which a fake misbehaves on purpose (downstream faults).
//
// A fake is a real server on loopback (see fakes/payments). The target under
// test calls it as it would call the real service; the harness reads the
// fake's ledger to count the side effects that really happened. Every
// request a fake receives is scanned for markers (tokens like
// idem-0123456789abcdef) so that an effect is attributed to its intent even
// when the target rewrites everything else about the request.
//
// The harness arms rules in-process (Fake.Arm) and learns whether they
// fired (FireCounter, FiredAt; Rules.Fired and the Armed handle inside a
// fake): a fault armed for an attempt that never fired examined nothing.
// A fake serves its control API (ledger, rules) only on a listener of its
// own, for idemcheck fakes; the address a target is given serves the
// fake's API alone, so a target cannot disarm its faults.
package fakes
