// Package faults holds idemcheck's fault injectors: the misbehaviours that
// make agents and clients retry, injected into one attempt at a precise
// fault point.
//
// Every fault is a small named type with JSON-tagged settings, registered by
// name in a [Registry] (see [Builtin]). The one required interface is [Fault];
// what a fault can do is expressed by optional interfaces, found by type
// assertion, in the manner of toxiproxy's toxics:
//
//   - ProxyFault acts inside the HTTP fault Proxy that sits between the
//     harness client and the target: answer without forwarding, forward and
//     replace the reply, hold the reply, reset the connection.
//   - ClientFault changes how the harness client waits (a deadline).
//   - DownstreamFault arms a rule in the fakes the target calls, so the
//     target's own downstream call fails (see fakes.Rule).
//
// An adapter that cannot honour a fault says so (the check is then skipped
// for that fault, never silently passed). The contract a new fault must keep
// is written in CREATING_FAULTS.md beside this file.
package faults
