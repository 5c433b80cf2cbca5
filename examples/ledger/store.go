package ledger

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/idemcheck/idemcheck/examples/internal/refdb"
)

// Transfer is one row of the transfers table: the effect.
type Transfer struct {
	ID     int64 `json:"id"`
	From   int64 `json:"from"`
	To     int64 `json:"to"`
	Amount int64 `json:"amount"`
}

// schema: the key in a UNIQUE column of the transfer itself, with the
// payload's fingerprint and the reply sent.
var schema = []string{`CREATE TABLE IF NOT EXISTS transfers (
	id {{id}},
	from_account BIGINT NOT NULL,
	to_account BIGINT NOT NULL,
	amount BIGINT NOT NULL,
	idempotency_key TEXT UNIQUE,
	fingerprint TEXT,
	reply TEXT
)`}

// store writes transfers the profile's way.
type store struct {
	db *refdb.DB
	// window is the other work a transfer does: before its transaction
	// commits (correct, no-fingerprint), or before its key is written
	// (key-after-effect). log says when a window opens.
	window time.Duration
	log    io.Writer
}

// outcome is what a transfer request did.
type outcome struct {
	transfer Transfer
	created  bool
}

// errMismatch is a key reused with another payload.
var errMismatch = errors.New("the idempotency key was used with another payload")

func fingerprint(t Transfer) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("%d\x00%d\x00%d", t.From, t.To, t.Amount)))
	return hex.EncodeToString(sum[:])
}

// inOneTransaction is the correct way, and without checkFingerprint the
// no-fingerprint one: the transfer, its key, the fingerprint and the
// reply commit together; a key already there replays.
func (s *store) inOneTransaction(ctx context.Context, t Transfer, key string, checkFingerprint bool) (outcome, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return outcome{}, err
	}
	defer func() { _ = tx.Rollback() }()
	fp := fingerprint(t)
	err = tx.QueryRowContext(ctx, `INSERT INTO transfers (from_account, to_account, amount, idempotency_key, fingerprint)
		VALUES ($1, $2, $3, $4, $5) ON CONFLICT (idempotency_key) DO NOTHING RETURNING id`,
		t.From, t.To, t.Amount, key, fp).Scan(&t.ID)
	if errors.Is(err, sql.ErrNoRows) {
		_ = tx.Rollback()
		return s.replay(ctx, key, fp, checkFingerprint)
	}
	if err != nil {
		return outcome{}, err
	}
	reply, _ := json.Marshal(t)
	if _, err := tx.ExecContext(ctx, `UPDATE transfers SET reply = $1 WHERE id = $2`, string(reply), t.ID); err != nil {
		return outcome{}, err
	}
	s.pause(ctx, "in the transaction, before commit")
	if err := tx.Commit(); err != nil {
		return outcome{}, err
	}
	return outcome{transfer: t, created: true}, nil
}

// replay returns the reply stored with key.
func (s *store) replay(ctx context.Context, key, fp string, checkFingerprint bool) (outcome, error) {
	var reply string
	var storedFP sql.NullString
	err := s.db.QueryRowContext(ctx, `SELECT coalesce(reply, ''), fingerprint FROM transfers WHERE idempotency_key = $1`, key).Scan(&reply, &storedFP)
	if err != nil {
		return outcome{}, fmt.Errorf("the key conflicted, but no transfer holds it: %w", err)
	}
	if checkFingerprint && storedFP.String != fp {
		return outcome{}, errMismatch
	}
	var t Transfer
	if err := json.Unmarshal([]byte(reply), &t); err != nil {
		return outcome{}, fmt.Errorf("the stored reply: %w", err)
	}
	return outcome{transfer: t}, nil
}

// keyAfterEffect looks the key up, commits the transfer, then writes its
// key in a statement of its own.
func (s *store) keyAfterEffect(ctx context.Context, t Transfer, key string) (outcome, error) {
	fp := fingerprint(t)
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM transfers WHERE idempotency_key = $1`, key).Scan(&n); err != nil {
		return outcome{}, err
	}
	if n > 0 {
		return s.replay(ctx, key, fp, true)
	}
	err := s.db.QueryRowContext(ctx, `INSERT INTO transfers (from_account, to_account, amount, fingerprint)
		VALUES ($1, $2, $3, $4) RETURNING id`, t.From, t.To, t.Amount, fp).Scan(&t.ID)
	if err != nil {
		return outcome{}, err
	}
	s.pause(ctx, "the transfer is committed, its key is not")
	reply, _ := json.Marshal(t)
	_, err = s.db.ExecContext(ctx, `UPDATE transfers SET idempotency_key = $1, reply = $2 WHERE id = $3`, key, string(reply), t.ID)
	if refdb.IsUniqueViolation(err) {
		// A concurrent copy wrote the key first: its transfer is the one
		// the key stands for, and this one is already made.
		return s.replay(ctx, key, fp, true)
	}
	if err != nil {
		return outcome{}, err
	}
	return outcome{transfer: t, created: true}, nil
}

// pause is the other work a transfer does at the profile's window, said
// on the log so that a test can crash the process there.
func (s *store) pause(ctx context.Context, where string) {
	if s.window <= 0 {
		return
	}
	fmt.Fprintf(s.log, "window: %s\n", where)
	t := time.NewTimer(s.window)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// list returns up to limit transfers after id after, in id order.
func (s *store) list(ctx context.Context, after int64, limit int) ([]Transfer, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, from_account, to_account, amount FROM transfers WHERE id > $1 ORDER BY id LIMIT $2`, after, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Transfer{}
	for rows.Next() {
		var t Transfer
		if err := rows.Scan(&t.ID, &t.From, &t.To, &t.Amount); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// stats returns how many transfers there are and the sum they moved.
func (s *store) stats(ctx context.Context) (n, total int64, err error) {
	err = s.db.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(amount), 0) FROM transfers`).Scan(&n, &total)
	return n, total, err
}
