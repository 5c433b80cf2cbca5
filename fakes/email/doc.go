// Package email is a fake email provider with two doors: a real SMTP server
// (github.com/emersion/go-smtp) and a SendGrid-like HTTP send API. Both
// record every message they accept in one fakes.Ledger (Fake "email", Kind
// "message"), so that idemcheck can count the emails a target really sent.
//
// A message is attributed to every marker found anywhere in it: over SMTP
// the HELO name, the envelope (MAIL FROM, RCPT TO) and the whole message
// (headers and body); over HTTP the URL, the headers and the JSON body.
//
// The *Server type implements fakes.Fake: URL() is the HTTP API's base URL,
// SMTPAddr() the SMTP server's host:port. Both listen on loopback only.
//
// # SMTP
//
// A plain (no TLS) ESMTP server for domain "localhost". AUTH PLAIN is
// offered and any credentials are accepted (net/smtp's PlainAuth agrees to
// send them unencrypted to localhost and 127.0.0.1), so are sessions that
// never authenticate. Messages are limited to [MaxMessageBytes]. When DATA
// ends the message is recorded (ledger first) and answered 250 with its id:
// "250 2.0.0 OK: queued as msg_000001".
//
// SMTP has no idempotency keys, and real SMTP servers do not de-duplicate:
// neither does this one. A sender that retries a message whose 250 it never
// saw sends it twice, and the ledger records it twice; that is what the
// ResetAfter fault shows. The message's X-Idempotency-Key header (or
// Idempotency-Key, else its Message-ID) is recorded as the effect's Key
// only so that a report can say "the downstream was given the same key but
// did not de-duplicate it": over SMTP, exactly-once is the sender's job (an
// outbox record written before sending, or the HTTP API with a key).
//
// # HTTP send API
//
//	POST   /v3/mail/send        send one message; 202, X-Message-Id: msg_000001, empty body
//	GET    /v3/messages         every message (SMTP and HTTP), oldest first; ?to=ADDR filters
//
// The control API (the ledger, the fault rules, how often they fired) is
// served only with Options.ControlAddr, on a listener of its own
// (ControlURL), never by either door a target is given:
//
//	GET    /_idemcheck/ledger           the ledger, as a JSON array of fakes.Effect
//	POST   /_idemcheck/rules            arm the fakes.Rule in the JSON body; 204
//	DELETE /_idemcheck/rules            disarm every rule; 204
//	GET    /_idemcheck/fired?marker=M   {"marker":M,"fired":N}
//
// The send body is SendGrid's v3 shape:
//
//	{"personalizations":[{"to":[{"email":"a@example.com"}]}],
//	 "from":{"email":"shop@example.com"}, "subject":"…",
//	 "content":[{"type":"text/plain","value":"…"}]}
//
// personalizations (each with at least one to.email), from.email, a subject
// (top-level or in every personalization) and content (each with type and
// a non-empty value) are required; other fields are accepted and ignored.
// An Authorization header is accepted and not checked. Errors are
// SendGrid-shaped: {"errors":[{"message":"…","field":"…"}]}; bodies are
// limited to MaxMessageBytes.
//
// Unless Options.IgnoreIdempotencyKeys is set, a send with an
// Idempotency-Key header is de-duplicated as the payments fake does: the
// first request claims the key atomically and another with the key gets
// 409 while it is in flight; once sent, the same key and the same body (as
// canonical JSON) replay the first reply (202, the same X-Message-Id) with
// Idempotent-Replayed: true and no new message; the key with another body
// gets 422 (the IETF idempotency-key draft's status); a request that fails
// before the message is recorded releases the key.
//
// # Downstream faults
//
// Rules are armed with Arm (or the control API's POST /_idemcheck/rules;
// Fired counts what they did) and consumed by the
// first message whose markers match. Over SMTP the standard actions act at
// DATA, once the whole message is read:
//
//   - FailBefore: 451 4.3.0, nothing recorded.
//   - FailAfter: recorded, then 451: the sender believes it failed.
//   - ResetAfter: recorded, then the connection is dropped (TCP reset)
//     before the 250: the sender cannot know the message was sent.
//   - Delay: waits Rule.Delay, then accepts; 421 if the fake is closing.
//   - Hang: holds the reply, nothing recorded, until the sender hangs up
//     or the fake closes; then the connection is dropped.
//   - HangAfter: recorded, then held the same way.
//   - Pass: accepted normally (with Rule.OnMatch, a fault point).
//   - AwaitCaller: as Pass (an SMTP session has no caller to wait for);
//     Rule.OnRelease is called at once.
//
// SMTP can also fail at an earlier stage: Reject(stage, code) makes an
// action that answers MAIL FROM, RCPT TO or DATA with code (400–599)
// instead, e.g. Reject(StageRcpt, 550). MAIL and RCPT rules can only see
// what the envelope carries (HELO name, sender, recipients), so their
// markers must be there; a rule without a marker matches any session. Data
// rejections record nothing.
//
// The HTTP API honours the standard actions as the payments fake does
// (FailBefore and FailAfter answer 503, ResetAfter resets the connection
// after recording, Hang and HangAfter hold the reply). A [Reject] at
// StageData answers 503 for a 4xx code and 400 for a 5xx code, recording
// nothing; MAIL and RCPT rejections never apply to the HTTP API.
package email
