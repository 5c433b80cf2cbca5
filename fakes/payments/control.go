package payments

import (
	"github.com/idemcheck/idemcheck/fakes/internal/httpfake"
)

// controlAPI is the fake's control API, served only with
// Options.ControlAddr: it lets a person or a program drive a fake that
// runs in another process (idemcheck fakes): read its ledger, arm and
// disarm its rules.
func (s *Server) controlAPI() httpfake.Control {
	return httpfake.Control{
		Ledger: s.ledger, Arm: s.Arm, Disarm: s.Disarm, Fired: s.Fired,
		Failure: func(status int, msg string) httpfake.Reply {
			e := invalidParam("", "%s", msg)
			e.Status = status
			return e.reply()
		},
	}
}
