// Package jsonstore is a reference command-line tool that keeps its
// effects in a JSON file: a store of records (a note and an amount) that
// an agent puts with an idempotency key, the whole store one JSON
// document rewritten on every write. idemcheck counts its records with a
// file observer (the records whose note holds the intent's marker).
//
//	jsonstore --profile NAME --file PATH [--window 0] put --note TEXT --amount N --idempotency-key K [--dry-run]
//	  → {"ok":true,"effect":"created"|"noop"|"would_create","data":{"id":"r_…","key":"K","note":"…","amount":N}}
//	jsonstore --profile NAME --file PATH get --idempotency-key K
//
// A put without a key is refused (exit 2), a key reused with another
// payload too (exit 1, "key_mismatch"). The profiles (Profiles) differ
// only in how the file is written:
//
//   - rewrite: load the file, look the key up, add the record, save the
//     file whole (written aside and renamed over the old one), with no
//     lock: two processes that overlap both load the same store, and the
//     second save loses the first's record, even for two distinct
//     intents; same-key copies each add one, and one survives.
//   - locked: the same load, check, add and save under an exclusive lock
//     (flock on PATH.lock): no write is lost, and same-key copies find the
//     first's record.
//
// Both save the same way, so a crash never leaves half a file: they differ
// only in the lock.
//
// --window is the other work a put does between loading and saving.
package jsonstore
