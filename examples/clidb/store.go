package clidb

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/idemcheck/idemcheck/examples/internal/refdb"
)

// Expense is one row of the expenses table: the effect.
type Expense struct {
	ID     int64  `json:"id,omitempty"`
	Amount int64  `json:"amount"`
	Memo   string `json:"memo"`
}

// schema: the key column is UNIQUE for correct; check-then-insert keeps
// its keys in a table of its own without the constraint. Both tables are
// made, so that either profile runs on any database.
var schema = []string{
	`CREATE TABLE IF NOT EXISTS expenses (
		id {{id}},
		amount BIGINT NOT NULL,
		memo TEXT NOT NULL,
		idempotency_key TEXT UNIQUE,
		fingerprint TEXT
	)`,
	`CREATE TABLE IF NOT EXISTS expense_keys (
		idempotency_key TEXT NOT NULL,
		expense_id BIGINT NOT NULL,
		fingerprint TEXT NOT NULL
	)`,
}

var errMismatch = errors.New("the idempotency key was used with another payload")

type store struct {
	db     *refdb.DB
	window time.Duration
}

func fingerprint(e Expense) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("%d\x00%s", e.Amount, e.Memo)))
	return hex.EncodeToString(sum[:])
}

// insertKeyed: one statement against the key's unique index.
func (s *store) insertKeyed(ctx context.Context, e Expense, key string) (Expense, bool, error) {
	fp := fingerprint(e)
	err := s.db.QueryRowContext(ctx, `INSERT INTO expenses (amount, memo, idempotency_key, fingerprint)
		VALUES ($1, $2, $3, $4) ON CONFLICT (idempotency_key) DO NOTHING RETURNING id`, e.Amount, e.Memo, key, fp).Scan(&e.ID)
	if err == nil {
		return e, true, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return Expense{}, false, err
	}
	var old Expense
	var oldFP string
	err = s.db.QueryRowContext(ctx, `SELECT id, amount, memo, fingerprint FROM expenses WHERE idempotency_key = $1`, key).
		Scan(&old.ID, &old.Amount, &old.Memo, &oldFP)
	if err != nil {
		return Expense{}, false, fmt.Errorf("the key conflicted, but no expense holds it: %w", err)
	}
	if oldFP != fp {
		return Expense{}, false, errMismatch
	}
	return old, false, nil
}

// checkThenInsert: look the key up, work, insert the expense and then its
// key, in statements of their own.
func (s *store) checkThenInsert(ctx context.Context, e Expense, key string) (Expense, bool, error) {
	fp := fingerprint(e)
	var old Expense
	var oldFP string
	err := s.db.QueryRowContext(ctx, `SELECT e.id, e.amount, e.memo, k.fingerprint FROM expense_keys k JOIN expenses e ON e.id = k.expense_id
		WHERE k.idempotency_key = $1 LIMIT 1`, key).Scan(&old.ID, &old.Amount, &old.Memo, &oldFP)
	switch {
	case err == nil && oldFP != fp:
		return Expense{}, false, errMismatch
	case err == nil:
		return old, false, nil
	case !errors.Is(err, sql.ErrNoRows):
		return Expense{}, false, err
	}
	if s.window > 0 {
		t := time.NewTimer(s.window) // the other work between the check and the insert
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
		}
	}
	if err := s.db.QueryRowContext(ctx, `INSERT INTO expenses (amount, memo) VALUES ($1, $2) RETURNING id`, e.Amount, e.Memo).Scan(&e.ID); err != nil {
		return Expense{}, false, err
	}
	if _, err := s.db.ExecContext(ctx, `INSERT INTO expense_keys (idempotency_key, expense_id, fingerprint) VALUES ($1, $2, $3)`, key, e.ID, fp); err != nil {
		return Expense{}, false, err
	}
	return e, true, nil
}

func (s *store) search(ctx context.Context, text string) ([]Expense, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, amount, memo FROM expenses WHERE memo LIKE '%' || $1 || '%' ORDER BY id`, text)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Expense{}
	for rows.Next() {
		var e Expense
		if err := rows.Scan(&e.ID, &e.Amount, &e.Memo); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}
