package payments

import (
	"net/http"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/fakes/internal/httpfake"
)

// The control endpoints let the harness drive a fake that runs in another
// process (idemcheck fakes): read its ledger, arm and disarm its rules.

// handleLedger serves GET /_idemcheck/ledger: every effect in the ledger, as
// a JSON array.
func (s *Server) handleLedger(w http.ResponseWriter, _ *http.Request) {
	effects := s.ledger.Effects()
	if effects == nil {
		effects = []fakes.Effect{}
	}
	httpfake.JSON(http.StatusOK, effects).Write(w)
}

// handleArm serves POST /_idemcheck/rules: it arms the rule in the body and
// answers 204.
func (s *Server) handleArm(w http.ResponseWriter, r *http.Request) {
	rule, err := httpfake.DecodeRule(r.Body, nil, "")
	if err != nil {
		invalidParam("", "Invalid rule: %v.", err).reply().Write(w)
		return
	}
	s.Arm(rule)
	w.WriteHeader(http.StatusNoContent)
}

// handleDisarm serves DELETE /_idemcheck/rules: it removes every rule that
// has not fired yet and answers 204.
func (s *Server) handleDisarm(w http.ResponseWriter, _ *http.Request) {
	s.Disarm()
	w.WriteHeader(http.StatusNoContent)
}
