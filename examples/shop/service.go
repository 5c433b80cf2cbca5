package shop

import (
	"context"
	"encoding/json"
	"net/http"
)

// service is the shop: its routes, state and the profile's strategy.
type service struct {
	out    presenter
	dryRun bool
	guard  guard
	// charger makes the charges of mutating requests: the payments client,
	// or the client wrapped with the profile's flaw.
	charger charger
	ids     *sequence
	book    *book
	// mailer sends the confirmation email of each created order; nil
	// without --email.
	mailer *mailer
	// emailWithoutKey sends the email without the client's key (see
	// Options.EmailWithoutKey).
	emailWithoutKey bool
	// onRead runs before a read; nil unless the profile has a read side
	// effect.
	onRead func(ctx context.Context, customer, trace string) error
	// callerBlind keys requests by the client's key alone, whoever the
	// caller (see scopedKey).
	callerBlind bool
	// errorAfterCharge answers a subscription whose charge went through
	// (for the first time) with 502, as if it had failed.
	errorAfterCharge bool
}

// newService assembles the shop for p. j is the durable key store (nil
// without --state, or for a profile that is not durable), boot this
// start's id, window the check-then-act gap.
func newService(p profile, pay *paymentsClient, d guardDeps) *service {
	s := &service{
		out:              presenter{effects: p.effects},
		dryRun:           p.dryRun,
		callerBlind:      p.callerBlind,
		errorAfterCharge: p.errorAfterCharge,
		charger:          pay,
		ids:              newSequence(),
		book:             newBook(),
	}
	s.restore(d.journal)
	d.ids = s.ids
	s.guard = p.newGuard(d)
	if p.newCharger != nil {
		s.charger = p.newCharger(pay)
	}
	if p.verifyOnRead {
		s.onRead = newCardVerifier(pay).onRead
	}
	return s
}

// restore continues the id sequence after the ids in the key store and
// puts the orders it holds back in the book, so that a restarted shop
// neither hands an id out twice nor forgets what it sold.
func (s *service) restore(j *journal) {
	for _, rec := range j.records() {
		if rec.State != stateComplete || rec.Reply == nil || rec.Status != http.StatusOK {
			continue
		}
		var r record
		if json.Unmarshal(rec.Reply.Data, &r) != nil || r.ID == "" {
			continue
		}
		s.ids.observe(r.ID)
		// A reply stored before its charge (mark-first) is no sale.
		if r.Charge != "" && rec.Op != "" {
			s.book.restore(rec.Op, r)
		}
	}
}

func (s *service) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/orders", s.methods(map[string]http.HandlerFunc{
		http.MethodGet:  s.listOrders,
		http.MethodPost: s.create(opOrders),
	}))
	mux.HandleFunc("/subscriptions", s.methods(map[string]http.HandlerFunc{
		http.MethodPost: s.create(opSubscriptions),
	}))
	mux.HandleFunc("/healthz", s.methods(map[string]http.HandlerFunc{
		http.MethodGet: s.healthz,
	}))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.out.send(w, failure(http.StatusNotFound, "no such resource: "+r.URL.Path), false)
	})
	return mux
}

// methods dispatches on the method and answers 405 in JSON otherwise (the
// mux's own 405 is plain text).
func (s *service) methods(byMethod map[string]http.HandlerFunc) http.HandlerFunc {
	allow := ""
	for _, m := range []string{http.MethodGet, http.MethodPost} {
		if byMethod[m] != nil {
			if allow != "" {
				allow += ", "
			}
			allow += m
		}
	}
	return func(w http.ResponseWriter, r *http.Request) {
		h := byMethod[r.Method]
		if h == nil && r.Method == http.MethodHead {
			h = byMethod[http.MethodGet]
		}
		if h == nil {
			w.Header().Set("Allow", allow)
			s.out.send(w, failure(http.StatusMethodNotAllowed, r.Method+" is not allowed here; allowed: "+allow), false)
			return
		}
		h(w, r)
	}
}

// create handles a mutating POST: validate, dry-run, guard, charge, reply.
func (s *service) create(op operation) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, err := readObject(w, r)
		if err != nil {
			s.out.send(w, failure(http.StatusBadRequest, err.Error()), false)
			return
		}
		in, err := op.parse(body)
		if err != nil {
			s.out.send(w, failure(http.StatusBadRequest, err.Error()), false)
			return
		}
		if s.dryRun {
			dry, err := dryRunRequested(r)
			if err != nil {
				s.out.send(w, failure(http.StatusBadRequest, err.Error()), false)
				return
			}
			if dry {
				// A dry run neither charges nor touches the key: the real
				// request that follows with the same key must execute.
				s.out.send(w, success(effectWouldCreate, in.record("")), false)
				return
			}
		}

		cl, replay, err := s.guard.begin(call{
			op:          op,
			key:         s.scopedKey(r),
			fingerprint: fingerprint(r.Method, r.URL.Path, body),
			semantic:    in.semantic,
			ctx:         r.Context(),
		})
		switch {
		case err != nil:
			s.out.send(w, failure(statusOf(err), err.Error()), false)
			return
		case replay != nil:
			s.out.send(w, *replay, true)
			return
		}

		rec := in.record(s.ids.next(op.prefix))
		cl.prepare(success(effectCreated, rec))
		// If payments replays (Idempotent-Replayed), an earlier attempt with
		// this key charged but its caller never saw a success (its reply
		// was lost, or the process that made it died): this is the first
		// success the client gets, so it is "created", with the same
		// charge.
		ch, err := s.charger.charge(r.Context(), in.charge(), cl.downstreamKey())
		rec.Charge = ch.id
		if err != nil {
			if isDeclined(err) {
				rep := failure(http.StatusPaymentRequired, err.Error())
				cl.complete(rep)
				s.out.send(w, rep, false)
				return
			}
			// No reply is stored, so a retry with the same key executes.
			cl.release()
			s.out.send(w, failure(http.StatusBadGateway, err.Error()), false)
			return
		}
		if s.errorAfterCharge && op.name == opSubscriptions.name && !ch.replayed {
			// The flaw: the charge went through, but the reply says it
			// failed. A retry with the same key finds it replayed by
			// payments and answers its success.
			cl.release()
			s.out.send(w, failure(http.StatusBadGateway, "charge failed: please retry"), false)
			return
		}
		if s.mailer != nil && op.name == opOrders.name {
			// The second side effect, under the same key: a retry after a
			// failed email finds the charge replayed by payments and
			// sends the email; the email fake replays a sent one.
			key := cl.downstreamKey()
			if s.emailWithoutKey {
				key = ""
			}
			if err := s.mailer.send(r.Context(), confirmation(in, ch.id), key); err != nil {
				cl.release()
				s.out.send(w, failure(http.StatusBadGateway, err.Error()), false)
				return
			}
		}
		s.book.add(op.name, rec)
		rep := success(effectCreated, rec)
		cl.complete(rep)
		s.out.send(w, rep, false)
	}
}

// listOrders is the safe read: GET /orders?customer=X&trace=T.
func (s *service) listOrders(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	customer := q.Get("customer")
	if s.onRead != nil {
		if err := s.onRead(r.Context(), customer, q.Get("trace")); err != nil {
			s.out.send(w, failure(http.StatusBadGateway, err.Error()), false)
			return
		}
	}
	s.out.send(w, success(effectNoop, map[string][]record{"orders": s.book.list(opOrders.name, customer)}), false)
}

func (s *service) healthz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte("{\"ok\":true}\n"))
}
