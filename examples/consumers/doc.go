// Package consumers is idemcheck's reference message-queue consumer: it
// reads "charge" events from a broker and charges each one on the payments
// fake. Brokers deliver at least once, so the consumer must turn every
// redelivery into no second charge; each profile does that its own way,
// and all but one plant a known flaw. idemcheck's tests run the profiles as
// real processes against real brokers (package brokers) and assert that
// each shows its flaw, and only its flaw.
//
// # Events
//
// Every message carries the event id in the Event-Id header (a stream
// field on Redis Streams), the entity in Event-Entity and its number
// within the entity in Event-Seq. The payload is a JSON object {"amount":1234,
// "currency":"usd","customer":"cus_1","description":"…"}; the description
// carries the harness's marker and is charged verbatim. A payload that is
// not such an object is charged 100 with the whole payload as its
// description, so that any payload carrying a marker works. A message
// without an event id is dropped (NATS: terminated, Kafka: committed,
// Redis: acked, RabbitMQ: rejected) with a line on stderr.
//
// The consumer charges with POST {{payments}}/v1/charges. A charge that
// fails (any non-2xx, a transport error) leaves the event unprocessed:
// NATS gets a nak with a short delay, Kafka retries the record in place
// (at most 50 times, then moves on without committing), a Redis entry
// stays pending until it is claimed again, and RabbitMQ gets a nack with
// requeue after a short delay.
//
// # Profiles
//
// correct: a durable processed-set in --state DIR (a file per event id,
// fsynced), and the event id passed downstream as the Idempotency-Key
// ("evt-" + id), so that the charge and its de-duplication are one
// transaction at the provider. The event is marked processed after the
// charge succeeded, then acked. A crash after the charge and before the
// mark or the ack leads to a redelivery that charges again with the same
// key: payments replays the first charge. A concurrent redelivery gets 409
// from payments while the first is in flight, and is retried. Another
// group member, with its own state directory, is de-duplicated by the key
// as well. Exactly one charge per event, always.
//
// memory (de-duplication in process memory): an atomic in-memory claim
// per event id, marked after the charge, and no key downstream. Duplicate
// publishes and concurrent redeliveries to the running process are
// de-duplicated; after a restart, or on another member of the group, the
// event is charged again.
//
// mark-first (marks processed, then acts): the durable set and the key,
// but the event is marked before the charge. A crash (or a failed charge)
// between the two loses the event: its redelivery finds it marked and is
// acked with no charge.
//
// check-then-insert (look up, act, then insert, with no claim): the
// durable set, no key downstream. Sequential redeliveries are skipped; a
// redelivery processed while the first delivery is still charging charges
// again, and so does the redelivery after a crash between the charge and
// the insert.
//
// ack-first (acks before the effect): the delivery is acked (a NATS ack
// the server confirmed, a Kafka commit) as soon as it arrives, then
// charged with the key. A crash,
// or a failed charge, after the ack loses the event.
//
// none: every delivery charges, without a key.
//
// The ledger profiles book each event as a row of their own PostgreSQL
// database (--db) instead of a charge: ledger (the row and its
// de-duplication in one statement), ledger-plain (a row per delivery),
// ledger-check-first (a look-up, then the insert) and ledger-ack-first
// (the ack, then the row, written again until the database takes it).
//
// high-water-mark (de-duplicates by sequence number, not by id): a
// durable high-water mark per entity in --state DIR (the highest
// Event-Seq charged for the Event-Entity header), and the key downstream.
// A delivery numbered at or below its entity's mark is acked with no
// charge. Every redelivery and duplicate publish is skipped, and a crash
// before the mark is raised charges again with the same key; but an event
// that arrives after a later event of its entity was processed is below
// the mark too, and is lost.
//
// # Brokers
//
// --broker nats (default) binds to the JetStream durable consumer
// --group of stream --stream and processes up to --workers messages at
// once, so that a redelivery may be processed while the first delivery is
// still being processed. --broker kafka joins the consumer group --group
// on topic --topic with an eager balancer (a rebalance revokes every
// partition and reads them again from the committed offsets), session
// timeout --ack-wait, and commits each record once processed, in order;
// with --parallel-poll it processes the records of each poll side by
// side, up to --workers at once, and commits them once all are done.
// --broker redis is a member of the Redis Streams group --group on stream
// --topic, named --name: when it starts it reads its own pending entries
// again (left by an earlier run under the same name), then in turn claims
// the entries any member left idle for --ack-wait (XAUTOCLAIM) and reads
// new ones, one at a time; an entry it could not process stays pending,
// to be claimed again. --broker rabbitmq consumes the queue --topic with
// manual acks, up to --workers deliveries at once; when the node closes
// its channel (a delivery not acked within its consumer timeout) it opens
// another at once, without waiting for the deliveries still being
// processed, whose acks then fail: the node redelivers them, possibly to
// this consumer while the first delivery is still being processed.
//
// # Running
//
// Run runs a consumer in-process; Main is the command line (cmd/consumer).
// It prints "consuming TOPIC from BROKER as GROUP (profile P)" once
// subscribed and stops on SIGINT or SIGTERM. Flags: --profile, --broker,
// --url (default $BROKER_URL), --topic, --stream, --group, --ack-wait,
// --payments (default $PAYMENTS_URL), --state, --name, --workers, --parallel-poll,
// --charge-delay (a wait before each charge: a slow consumer). Exit
// status: 0 once stopped, 1 on a failure (the broker unreachable), 2 on
// bad usage.
//
// # In another language
//
// python/consumer.py is a consumer written in Python with Debian's
// python3-redis and the standard library: a member of a Redis Streams
// group that reads, claims and acks as --broker redis does, with the
// profiles correct and none. idemcheck judges it like the Go profiles
// (the correct one scores 3, the other is caught); its test skips, saying
// why, without python3 and the redis module.
package consumers
