#!/usr/bin/env python3
"""A command-line tool in Python that charges customers, for idemcheck.

It charges through a Stripe-like payments API with the standard library
only (urllib, sqlite3), with the conventions of an agent-friendly tool: a
JSON reply {ok, effect, data} on stdout, --idempotency-key, --dry-run, exit
0 on success and on a no-op replay, 1 when refused, 2 for bad usage, 75
(EX_TEMPFAIL) when the outcome is unknown and a retry with the same key is
the way on. Run it as idemcheck runs it:

    PAYMENTS_URL={{fakes.payments.url}} python3 charges.py \\
        --store correct --db {{state_dir}}/keys.db \\
        charge --customer cus_1 --amount 100 --memo "order {{marker}}" \\
        --idempotency-key {{key}}

Stores (--store):

  correct  a SQLite key table: the key is claimed in one transaction
           (BEGIN IMMEDIATE, an INSERT the primary key makes unique),
           with the fingerprint of the call and the claimer's pid; a
           complete key replays its stored reply, a key reused with other
           inputs is refused, a claim whose process died is taken over,
           and the key goes downstream as the Idempotency-Key, so that the
           charge the dead process may have made is replayed, not made
           again. A charge without a key is refused.
  none     no store: every call charges, without a key downstream (the
           flaw idemcheck must catch).
"""

import argparse
import hashlib
import json
import os
import sqlite3
import sys
import time
import urllib.error
import urllib.request

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_TEMPFAIL = 0, 1, 2, 75
STORES = ("correct", "none")
DOWNSTREAM_TIMEOUT = 10
# How long a call waits for another process that holds its key.
BUSY_WAIT = 5.0


class Reply(Exception):
    """The tool's reply and exit code, raised from anywhere."""

    def __init__(self, code, body):
        super().__init__(body.get("reason", ""))
        self.code, self.body = code, body


def refuse(code, error, reason):
    return Reply(code, {"ok": False, "error": error, "reason": reason})


def charge_downstream(base, customer, amount, memo, key):
    """Makes one charge; returns its id, or raises a Reply."""
    body = json.dumps({"amount": amount, "currency": "usd", "customer": customer,
                       "description": memo}).encode()
    req = urllib.request.Request(base.rstrip("/") + "/v1/charges", data=body, method="POST",
                                 headers={"Content-Type": "application/json", "Accept": "application/json"})
    if key:
        req.add_header("Idempotency-Key", key)
    try:
        with urllib.request.urlopen(req, timeout=DOWNSTREAM_TIMEOUT) as resp:
            raw = resp.read(1 << 20)
    except urllib.error.HTTPError as e:
        status = e.code
        if status >= 500 or status in (409, 429):
            raise refuse(EXIT_TEMPFAIL, "downstream_unavailable",
                         "payments: HTTP %d: the outcome is unknown; retry with the same idempotency key" % status)
        raise refuse(EXIT_FAILED, "declined", "payments: refused (HTTP %d)" % status)
    except (urllib.error.URLError, OSError) as e:
        raise refuse(EXIT_TEMPFAIL, "downstream_unavailable",
                     "payments: %s: the outcome is unknown; retry with the same idempotency key" % e)
    try:
        charge_id = json.loads(raw)["id"]
    except (ValueError, KeyError, TypeError):
        raise refuse(EXIT_TEMPFAIL, "downstream_unavailable", "payments: a success without a charge id")
    return charge_id


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class CorrectStore:
    """Keys in SQLite: claimed atomically, replayed, fingerprinted."""

    def __init__(self, path):
        self.db = sqlite3.connect(path, timeout=BUSY_WAIT, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("CREATE TABLE IF NOT EXISTS keys (key TEXT PRIMARY KEY, fingerprint TEXT NOT NULL,"
                        " state TEXT NOT NULL, pid INTEGER NOT NULL, reply TEXT)")

    def begin(self, key, fingerprint):
        """Claims key; returns a stored reply to replay, or None to act."""
        if not key:
            raise refuse(EXIT_USAGE, "key_required",
                         "charge changes things and --store correct requires --idempotency-key KEY")
        if len(key) > 255:
            raise refuse(EXIT_USAGE, "usage", "--idempotency-key must be at most 255 characters")
        deadline = time.monotonic() + BUSY_WAIT
        while True:
            # Read first, without the write lock: a key another process
            # holds is waited for by reading, not by taking the lock its
            # holder needs to finish.
            row = self.db.execute("SELECT fingerprint, state, pid, reply FROM keys WHERE key = ?", (key,)).fetchone()
            if row is None or (row[1] == "in_progress" and row[0] == fingerprint and not alive(row[2])):
                claimed, row = self.claim(key, fingerprint)
                if claimed:
                    return None
            fp, state, _, reply = row
            if fp != fingerprint:
                raise refuse(EXIT_FAILED, "key_reused",
                             "idempotency key %r was used for another call: use a new key for a new request" % key)
            if state == "complete":
                return json.loads(reply)
            if time.monotonic() > deadline:
                raise refuse(EXIT_TEMPFAIL, "in_flight",
                             "a call with this idempotency key is still in flight: retry with the same key")
            time.sleep(0.01)

    def claim(self, key, fingerprint):
        """Claims key in one write transaction, if it is new or its claimer
        died mid-call; returns whether it did, and the row it found."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            row = self.db.execute("SELECT fingerprint, state, pid, reply FROM keys WHERE key = ?", (key,)).fetchone()
            if row is None or (row[1] == "in_progress" and row[0] == fingerprint and not alive(row[2])):
                # New, or claimed by a process that died mid-call: take it
                # over (the key downstream makes that safe).
                self.db.execute("INSERT OR REPLACE INTO keys VALUES (?, ?, 'in_progress', ?, NULL)",
                                (key, fingerprint, os.getpid()))
                self.db.execute("COMMIT")
                return True, None
            self.db.execute("COMMIT")
            return False, row
        except BaseException:
            self.db.execute("ROLLBACK")
            raise

    def complete(self, key, reply):
        self.db.execute("UPDATE keys SET state = 'complete', reply = ? WHERE key = ?", (json.dumps(reply), key))

    def fail(self, key):
        self.db.execute("DELETE FROM keys WHERE key = ? AND state = 'in_progress'", (key,))

    def downstream_key(self, key):
        return key


class NoStore:
    """No idempotency at all: the flaw."""

    def begin(self, key, fingerprint):
        return None

    def complete(self, key, reply):
        pass

    def fail(self, key):
        pass

    def downstream_key(self, key):
        return ""


def charge(args, store):
    if not args.payments:
        raise refuse(EXIT_USAGE, "usage", "no payments API: pass --payments URL or set $PAYMENTS_URL")
    if args.amount <= 0:
        raise refuse(EXIT_USAGE, "usage", "--amount must be positive")
    fingerprint = hashlib.sha256(json.dumps(["charge", args.customer, args.amount, args.memo]).encode()).hexdigest()
    if args.dry_run:
        if isinstance(store, NoStore):
            raise refuse(EXIT_USAGE, "no_dry_run", "--store none has no dry run")
        return {"ok": True, "effect": "would_create",
                "data": {"customer": args.customer, "amount": args.amount},
                "changes": ["would charge %s %d" % (args.customer, args.amount)]}
    stored = store.begin(args.idempotency_key, fingerprint)
    if stored is not None:
        replay = dict(stored)
        replay["effect"] = "noop"
        replay["reason"] = "replayed: this key's call already charged"
        return replay
    try:
        charge_id = charge_downstream(args.payments, args.customer, args.amount, args.memo,
                                      store.downstream_key(args.idempotency_key))
    except BaseException:
        store.fail(args.idempotency_key)
        raise
    reply = {"ok": True, "effect": "created", "data": {"id": charge_id, "customer": args.customer,
                                                      "amount": args.amount}}
    store.complete(args.idempotency_key, reply)
    return reply


def main(argv):
    parser = argparse.ArgumentParser(prog="charges.py", description=__doc__.split("\n")[0])
    parser.add_argument("--store", choices=STORES, required=True)
    parser.add_argument("--db", help="the key store's SQLite file (--store correct)")
    parser.add_argument("--payments", default=os.environ.get("PAYMENTS_URL", ""))
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("charge", help="charge a customer")
    c.add_argument("--customer", required=True)
    c.add_argument("--amount", type=int, required=True)
    c.add_argument("--memo", default="")
    c.add_argument("--idempotency-key", default="")
    c.add_argument("--dry-run", action="store_true")
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:
        return EXIT_USAGE if e.code else EXIT_OK
    try:
        if args.store == "correct":
            if not args.db:
                raise refuse(EXIT_USAGE, "usage", "--store correct needs --db PATH")
            store = CorrectStore(args.db)
        else:
            store = NoStore()
        reply, code = charge(args, store), EXIT_OK
    except Reply as r:
        reply, code = r.body, r.code
    except sqlite3.Error as e:
        reply, code = {"ok": False, "error": "store_unavailable", "reason": "key store: %s" % e}, EXIT_TEMPFAIL
    print(json.dumps(reply), flush=True)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
