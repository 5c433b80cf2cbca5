package email

import (
	"net/http"
	"slices"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/fakes/internal/httpfake"
)

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v3/mail/send", s.handleSend)
	mux.HandleFunc("GET /v3/messages", s.handleMessages)
	mux.HandleFunc("GET /_idemcheck/ledger", s.handleLedger)
	mux.HandleFunc("POST /_idemcheck/rules", s.handleArm)
	mux.HandleFunc("DELETE /_idemcheck/rules", s.handleDisarm)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		failure(http.StatusNotFound, "", "no such endpoint: %s %s; send mail with POST /v3/mail/send", r.Method, r.URL.Path).Write(w)
	})
	return http.MaxBytesHandler(mux, MaxMessageBytes)
}

// handleMessages serves GET /v3/messages, oldest first; to= keeps the
// messages with that recipient.
func (s *Server) handleMessages(w http.ResponseWriter, r *http.Request) {
	to := r.URL.Query().Get("to")
	out := []Message{}
	for _, m := range s.Messages() {
		if to == "" || slices.Contains(m.To, to) {
			out = append(out, m)
		}
	}
	httpfake.JSON(http.StatusOK, map[string]any{"messages": out}).Write(w)
}

// handleLedger serves GET /_idemcheck/ledger.
func (s *Server) handleLedger(w http.ResponseWriter, _ *http.Request) {
	effects := s.ledger.Effects()
	if effects == nil {
		effects = []fakes.Effect{}
	}
	httpfake.JSON(http.StatusOK, effects).Write(w)
}

// handleArm serves POST /_idemcheck/rules: a standard action or a Reject.
func (s *Server) handleArm(w http.ResponseWriter, r *http.Request) {
	known := func(a fakes.Action) bool { _, _, ok := ParseReject(a); return ok }
	rule, err := httpfake.DecodeRule(r.Body, known, rejectHint)
	if err != nil {
		failure(http.StatusBadRequest, "", "invalid rule: %v", err).Write(w)
		return
	}
	s.Arm(rule)
	w.WriteHeader(http.StatusNoContent)
}

// handleDisarm serves DELETE /_idemcheck/rules.
func (s *Server) handleDisarm(w http.ResponseWriter, _ *http.Request) {
	s.Disarm()
	w.WriteHeader(http.StatusNoContent)
}
