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

// controlAPI is the fake's control API, served only with
// Options.ControlAddr: a standard action or a Reject is armed for either
// door.
func (s *Server) controlAPI() httpfake.Control {
	return httpfake.Control{
		Ledger: s.ledger, Arm: s.Arm, Disarm: s.Disarm, Fired: s.Fired,
		Known: func(a fakes.Action) bool { _, _, ok := ParseReject(a); return ok },
		Extra: rejectHint,
		Failure: func(status int, msg string) httpfake.Reply {
			return failure(status, "", "%s", msg)
		},
	}
}
