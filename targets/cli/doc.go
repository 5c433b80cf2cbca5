// Package cli is idemcheck's adapter for command-line tools that follow the
// conventions of agent tools (a JSON reply {ok, effect, data}, the flags
// --idempotency-key and --dry-run, exit codes): every attempt runs the tool
// once, as a real process, and the tool's exit status and JSON reply
// become the attempt's outcome.
//
// An operation is a list of argument templates appended to the target's
// command, filled with the intent's {{key}}, {{marker}} and {{input.NAME}}.
// When a call to a mutating operation has a key, the key flag (default
// --idempotency-key) and the key are appended as two arguments (a safe
// operation gets no key); a dry run appends the dry-run flag (default
// --dry-run). The reply is read as the JSON reply convention {ok, effect,
// data} on stdout:
//
//	{"ok": true, "effect": "created", "data": {"id": "ord_1"}, "reason": "…"}
//
// with the effect and the result identity (default data.id) found by JSON
// path. Exit codes are part of the outcome:
//
//	exit 0 (and not "ok": false)           ok
//	exit 75 (EX_TEMPFAIL; RetryExitCodes)  info: a temporary failure, the CLI's 503
//	any other exit code                    fail
//	killed (timeout, crash fault, signal)  info
//
// A tool that prints garbage, crashes on a signal or hangs is never an
// error of the harness: the Reply carries the evidence (the head of
// stdout, the tail of stderr, the signal) and says what happened.
//
// Each invocation runs in its own process group with Pdeathsig=SIGKILL,
// and when it ends, whatever is left of its group is killed: nothing a
// call starts outlives it. The adapter implements harness.Crasher (Kill
// SIGKILLs the invocation that is running; Restart has nothing to do,
// since the next invocation starts fresh and the tool's state lives in
// its state directory) and harness.Burster (N invocations prepared, then
// started in one tight loop). Faults: downstream faults (the harness arms
// the fakes), crash-before-effect and crash-after-effect (the fakes say
// when), and client-timeout, which for a command means the client gives
// up after the fault's timeout while the tool runs to its end (killed
// only past the target's own timeout), and its reply is withheld. Proxy faults
// (503-before, lost-response, reset, hang) and crash-after-reply need a
// transport between client and target, which a command does not have.
//
// The package is Linux only, like targets/process.
package cli
