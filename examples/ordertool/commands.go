package ordertool

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// runEnv is what a command runs with.
type runEnv struct {
	g globals
}

func newRunEnv(g globals) (*runEnv, *response) {
	if !slices.Contains(Stores, g.store) {
		r := usageError("unknown store %q (stores: %s)", g.store, strings.Join(Stores, ", "))
		return nil, &r
	}
	if g.stateDir == "" {
		r := usageError("no state directory: pass --state-dir DIR or set $STATE_DIR")
		return nil, &r
	}
	if g.ttl <= 0 || g.wait < 0 {
		r := usageError("--ttl must be positive and --wait not negative")
		return nil, &r
	}
	return &runEnv{g: g}, nil
}

// mutation is one mutating call, ready to run through a store.
type mutation struct {
	req request
	// preview is the dry run's data and the changes it would make.
	preview func() (any, []string)
	// act causes the side effect, passing key downstream when not empty,
	// and returns the reply's data.
	act func(ctx context.Context, key string) (any, error)
}

// mutate runs m: dry run, or claim, act, and record.
func (e *runEnv) mutate(ctx context.Context, m mutation, dryRun bool) response {
	st, err := openStore(e.g)
	if err != nil {
		return asRefusal(storeError("open", err))
	}
	defer st.close()
	if dryRun {
		if !st.dryRun() {
			return failure(ExitUsage, codeNoDryRun, "--dry-run is not available with --store %s", e.g.store)
		}
		// A dry run neither acts nor touches the key: the real call that
		// follows with the same key must act.
		data, changes := m.preview()
		r := success(effectWouldCreate, data)
		r.body.Changes = changes
		return r
	}
	cl, replay, err := st.begin(m.req)
	switch {
	case err != nil:
		return asRefusal(err)
	case replay != nil:
		r := response{exit: ExitOK, body: *replay}
		r.body.Effect = effectNoop
		r.body.Reason = "replayed: a call with this idempotency key already did it"
		return r
	}
	data, err := m.act(ctx, cl.downstreamKey())
	if err != nil {
		cl.fail(err)
		return asResponse(err)
	}
	r := success(effectCreated, data)
	if err := cl.complete(r.body); err != nil {
		// It happened; say so, but also that a retry may do it again.
		r.body.Reason = fmt.Sprintf("done, but the idempotency store could not record it (%v): do not retry", err)
	}
	return r
}

func createOrder(ctx context.Context, e *runEnv, a *cmdArgs) response {
	switch {
	case a.customer == "":
		return usageError("create-order: --customer is required")
	case a.amount <= 0:
		return usageError("create-order: --amount must be a positive number of cents, got %d", a.amount)
	case e.g.paymentsURL == "" && !a.dryRun:
		return usageError("create-order: no payments API: pass --payments URL or set $PAYMENTS_URL")
	}
	draft := order{Customer: a.customer, Amount: a.amount, Currency: "usd", Memo: a.memo}
	return e.mutate(ctx, mutation{
		req: request{op: "create-order", key: a.key, inputs: map[string]any{"customer": a.customer, "amount": a.amount, "memo": a.memo}},
		preview: func() (any, []string) {
			return draft, []string{fmt.Sprintf("would charge %d %s to %s", a.amount, draft.Currency, a.customer), "would record a new order"}
		},
		act: func(ctx context.Context, key string) (any, error) {
			ch, err := charge(ctx, e.g.paymentsURL, a.customer, a.amount, a.memo, key)
			if err != nil {
				return nil, err
			}
			o := draft
			o.ID, o.Charge = newID("ord_"), ch
			if err := appendLine(filepath.Join(e.g.stateDir, OrdersFile), o); err != nil {
				return nil, &unavailableError{fmt.Sprintf("charged (%s) but could not record the order: %v", ch, err)}
			}
			return o, nil
		},
	}, a.dryRun)
}

// message is send-email's data.
type message struct {
	ID      string `json:"id"`
	To      string `json:"to"`
	Subject string `json:"subject"`
}

func sendEmail(ctx context.Context, e *runEnv, a *cmdArgs) response {
	switch {
	case a.to == "" || !strings.Contains(a.to, "@"):
		return usageError("send-email: --to must be an email address, got %q", a.to)
	case a.subject == "":
		return usageError("send-email: --subject is required")
	case e.g.emailURL == "" && !a.dryRun:
		return usageError("send-email: no email API: pass --email URL or set $EMAIL_URL")
	}
	return e.mutate(ctx, mutation{
		req: request{op: "send-email", key: a.key, inputs: map[string]any{"to": a.to, "subject": a.subject, "memo": a.memo}},
		preview: func() (any, []string) {
			return message{To: a.to, Subject: a.subject}, []string{fmt.Sprintf("would send %q to %s", a.subject, a.to)}
		},
		act: func(ctx context.Context, key string) (any, error) {
			id, err := sendMail(ctx, e.g.emailURL, a.to, a.subject, a.memo, key)
			if err != nil {
				return nil, err
			}
			return message{ID: id, To: a.to, Subject: a.subject}, nil
		},
	}, a.dryRun)
}

func getOrder(_ context.Context, e *runEnv, a *cmdArgs) response {
	if a.id == "" {
		return usageError("get-order: --id is required")
	}
	o, err := findOrder(e.g.stateDir, a.id)
	if err != nil {
		return failure(ExitTempFail, codeStore, "%v", err)
	}
	if o == nil {
		// Nothing found is an answer, not a failure: data is null.
		r := response{exit: ExitOK, body: envelope{OK: true, Effect: effectNoop, Data: json.RawMessage("null"),
			Reason: fmt.Sprintf("no order with id %q", a.id)}}
		return r
	}
	return success(effectNoop, o)
}
