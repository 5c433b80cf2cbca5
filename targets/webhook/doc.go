// Package webhook is idemcheck's adapter for webhook handlers: idemcheck is
// the sender. Each attempt is one delivery of an event to the handler's
// endpoint, signed as a provider would sign it, through the same fault proxy
// as HTTP targets (it wraps a targets/http Target), so every proxy, client,
// downstream and crash fault is a delivery whose acknowledgement was lost,
// timed out or crashed the handler, and the harness's retries are the
// provider's redeliveries: at least once, with the same event id.
//
// # Events
//
// Each [Event] of the [Config] is one operation: a POST of Body to Path. The
// intent's key is the event id: write {{key}} where the payload carries it
// (e.g. {"id":"{{key}}",…}); every redelivery of an intent has the same id.
// Body, Path and header values may also use {{marker}} (put it where the
// handler passes it on to its downstream calls), {{input.NAME}} and
// {{created}}: the Unix time at which the adapter first delivered that
// event id, the same on every redelivery (OutOfOrder assigns it in the
// order the events were made).
//
// An event with Safe set (a ping) must cause no side effect, which
// safe.readonly checks.
//
// # Signatures
//
// Every delivery is signed with HMAC-SHA256 under Signature.Secret, in
// Signature.Header (default Idemcheck-Signature). The schemes:
//
//   - "stripe" (the default): "t=TIMESTAMP,v1=HEX", HEX the HMAC of
//     "TIMESTAMP.BODY", TIMESTAMP the Unix time of the delivery (Stripe's
//     scheme; a handler should also refuse old timestamps).
//   - "hex": Prefix followed by the hex HMAC of the raw body (GitHub's
//     X-Hub-Signature-256 is Prefix "sha256=").
//   - "base64": Prefix followed by the base64 HMAC of the raw body
//     (Shopify's X-Shopify-Hmac-Sha256).
//   - "none": no signature.
//
// BadSignature delivers an attempt signed with the wrong secret (in the
// right format): a handler must refuse it (4xx), cause no effect, and not
// let it consume the event id. OutOfOrder delivers events newest first.
// The checks webhook.signature and webhook.out-of-order judge those
// deliveries; CHECKS.md describes how.
//
// # What does not apply
//
// Webhook handlers have no idempotency-key header, no effect field in
// their acknowledgement and no dry run: Info declares none of those
// capabilities, so key.required, key.mismatch, dryrun and effect.field are
// reported as not applicable.
// A handler acknowledges with any 2xx; 409 and 5xx are redelivered.
//
// The configuration file's webhook kind is package
// targets/webhook/webhookconfig, apart, so that a Go test of a handler
// does not build the configuration's schema, observers and drivers.
package webhook
