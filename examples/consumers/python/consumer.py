#!/usr/bin/env python3
"""A queue consumer in Python, reading a Redis Streams consumer group.

It charges each "charge" event on the payments service, as the Go
reference consumer does, with Debian's python3-redis client and the
standard library only. Run it as idemcheck runs it:

    python3 consumer.py --profile correct --url {{broker.url}} \\
        --topic {{broker.topic}} --group {{broker.group}} \\
        --ack-wait {{broker.ack_wait}} --payments {{fakes.payments.url}} \\
        --state {{state_dir}} --name member-{{replica}}

It prints "consuming TOPIC from redis as GROUP" once connected, then reads
its own pending entries (left by a previous run under the same --name),
then, in turn, claims the entries any member left idle for --ack-wait
(XAUTOCLAIM) and reads new ones. An entry it could not process stays
pending, to be claimed again.

Profiles:

  correct  a durable processed-set in --state (a file per event id,
           fsynced), marked after the charge, and the event id passed
           downstream as the Idempotency-Key ("evt-" + id): a redelivery
           after a crash charges again with the same key, which payments
           replays; exactly one charge per event.
  none     no de-duplication: every delivery charges, without a key (the
           flaw idemcheck must catch).
"""

import argparse
import hashlib
import json
import os
import re
import sys
import urllib.error
import urllib.request

import redis

EVENT_ID = "Event-Id"
PROFILES = ("correct", "none")
# Entries read or claimed at once, and how long one read blocks (ms), so
# that claims are made in between.
BATCH = 4
BLOCK_MS = 200
DOWNSTREAM_TIMEOUT = 30


def log(msg):
    print("consumer: " + msg, file=sys.stderr, flush=True)


def duration_ms(text):
    """Parses a Go duration such as 500ms, 2s or 1m30s into milliseconds."""
    units = {"ms": 1, "s": 1000, "m": 60000, "h": 3600000}
    parts = re.findall(r"(\d+(?:\.\d+)?)(ms|s|m|h)", text)
    if not parts or "".join(n + u for n, u in parts) != text:
        raise argparse.ArgumentTypeError("expected a duration such as 500ms or 2s, got %r" % text)
    return int(sum(float(n) * units[u] for n, u in parts))


def parse_charge(payload):
    """The charge an event asks for; its marker reaches the description."""
    try:
        c = json.loads(payload)
    except ValueError:
        c = None
    if not isinstance(c, dict) or (not c.get("description") and not c.get("amount")):
        c = {"description": payload.strip()}
    amount = c.get("amount")
    return {
        "amount": amount if isinstance(amount, int) and amount > 0 else 100,
        "currency": c.get("currency") or "usd",
        "customer": c.get("customer") or "cus_events",
        "description": str(c.get("description", "")),
    }


def charge(base, body, key):
    """POSTs a charge; returns None on success, else why it failed."""
    req = urllib.request.Request(base.rstrip("/") + "/v1/charges", data=json.dumps(body).encode(),
                                 method="POST", headers={"Content-Type": "application/json"})
    if key:
        req.add_header("Idempotency-Key", key)
    try:
        with urllib.request.urlopen(req, timeout=DOWNSTREAM_TIMEOUT) as resp:
            reply = json.loads(resp.read(1 << 20) or b"{}")
            return None if reply.get("id") else "payments: HTTP %d without a charge id" % resp.status
    except urllib.error.HTTPError as e:
        return "payments: HTTP %d" % e.code
    except (OSError, ValueError) as e:
        return "payments: %s" % e


class ProcessedSet:
    """Event ids processed, one fsynced file each, surviving restarts."""

    def __init__(self, root):
        self.root = root

    def path(self, event_id):
        return os.path.join(self.root, "py-" + hashlib.sha256(event_id.encode()).hexdigest())

    def done(self, event_id):
        return os.path.exists(self.path(event_id))

    def mark(self, event_id):
        fd = os.open(self.path(event_id), os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            os.write(fd, event_id.encode())
            os.fsync(fd)
        finally:
            os.close(fd)


def handler(args):
    """Returns a function that processes one event and says whether to ack it."""
    if args.profile == "none":
        def handle(event_id, payload):
            err = charge(args.payments, parse_charge(payload), None)
            if err:
                log("event %s: %s; will retry" % (event_id, err))
            return err is None
        return handle

    processed = ProcessedSet(args.state)

    def handle(event_id, payload):
        if processed.done(event_id):
            return True
        err = charge(args.payments, parse_charge(payload), "evt-" + event_id)
        if err:
            log("event %s: %s; will retry" % (event_id, err))
            return False
        processed.mark(event_id)
        return True
    return handle


def consume(args):
    client = redis.Redis.from_url(args.url, decode_responses=True, client_name=args.name,
                                  socket_connect_timeout=5)
    client.ping()
    handle = handler(args)
    print("consuming %s from redis as %s (profile %s)" % (args.topic, args.group, args.profile), flush=True)

    def each(entries):
        for entry_id, fields in entries or []:
            event_id = (fields or {}).get(EVENT_ID, "")
            if not event_id:
                log("entry %s without an %s field: acked and skipped" % (entry_id, EVENT_ID))
                client.xack(args.topic, args.group, entry_id)
                continue
            if handle(event_id, fields.get("payload", "")):
                client.xack(args.topic, args.group, entry_id)

    # First our own pending entries, then new ones.
    for _, entries in client.xreadgroup(args.group, args.name, {args.topic: "0"}, count=1000) or []:
        each(entries)
    while True:
        claimed = client.xautoclaim(args.topic, args.group, args.name, min_idle_time=args.ack_wait,
                                    start_id="0-0", count=BATCH)
        each(claimed[1])
        for _, entries in client.xreadgroup(args.group, args.name, {args.topic: ">"}, count=BATCH,
                                            block=BLOCK_MS) or []:
            each(entries)


def main(argv):
    p = argparse.ArgumentParser(prog="consumer.py", description=__doc__.splitlines()[0])
    p.add_argument("--profile", required=True, choices=PROFILES)
    p.add_argument("--url", default=os.environ.get("BROKER_URL", ""), help="redis:// URL ({{broker.url}})")
    p.add_argument("--topic", default="events", help="stream key ({{broker.topic}})")
    p.add_argument("--group", default="consumers", help="consumer group ({{broker.group}})")
    p.add_argument("--ack-wait", type=duration_ms, default="2s", help="idle time before a claim ({{broker.ack_wait}})")
    p.add_argument("--payments", default=os.environ.get("PAYMENTS_URL", ""), help="payments base URL")
    p.add_argument("--state", default="", help="state directory that survives restarts")
    p.add_argument("--name", default="consumer-%d" % os.getpid(), help="member name")
    args = p.parse_args(argv)
    if not args.url.startswith("redis://"):
        p.error("--url: expected a redis:// URL (or $BROKER_URL)")
    if not args.payments.startswith("http"):
        p.error("--payments: expected an http URL (or $PAYMENTS_URL)")
    if args.profile == "correct" and not os.path.isdir(args.state):
        p.error("--profile correct keeps its processed events in --state DIR; none given")
    try:
        consume(args)
    except redis.exceptions.ConnectionError as e:
        log("redis at %s: %s" % (args.url, e))
        return 1
    except KeyboardInterrupt:
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
