package shop

import (
	"context"
	"net/http"
)

// service is the shop: its routes, state and the profile's strategy.
type service struct {
	out    presenter
	dryRun bool
	guard  guard
	pay    *paymentsClient
	ids    *sequence
	book   *book
	// onRead runs before a read; nil unless the profile has a read side
	// effect.
	onRead func(ctx context.Context, customer, trace string) error
}

func newService(p profile, pay *paymentsClient) *service {
	s := &service{
		out:    presenter{effects: p.effects},
		dryRun: p.dryRun,
		pay:    pay,
		ids:    newSequence(),
		book:   newBook(),
	}
	s.guard = p.newGuard(s.ids)
	if p.verifyOnRead {
		s.onRead = newCardVerifier(pay).onRead
	}
	return s
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
			key:         requestKey(r),
			fingerprint: fingerprint(r.Method, r.URL.Path, body),
			semantic:    in.semantic,
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
		rec.Charge, err = s.pay.charge(r.Context(), in.charge(), cl.downstreamKey())
		if err != nil {
			if isDeclined(err) {
				rep := failure(http.StatusPaymentRequired, err.Error())
				cl.complete(rep)
				s.out.send(w, rep, false)
				return
			}
			// Nothing is stored, so a retry with the same key executes.
			cl.release()
			s.out.send(w, failure(http.StatusBadGateway, err.Error()), false)
			return
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
