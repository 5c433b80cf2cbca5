package httpfake

import (
	"net/http"
	"time"

	"github.com/idemcheck/idemcheck/fakes"
)

// forever is how long a Hang holds a request: until the client or the
// server gives up.
const forever = time.Duration(1 << 62)

// Faults applies the fakes.Rule actions around one request, as every HTTP
// fake does:
//
//   - FailBefore: Unavailable, nothing handled.
//   - FailAfter: handled (the effect is recorded and its reply stored
//     against the key), then Unavailable instead of the reply.
//   - ResetAfter: handled, then the connection is reset without a reply.
//   - Delay: waits Rule.Delay, then handles; a client that gives up first
//     causes nothing, a closing server answers Closing.
//   - Hang: holds the request unhandled until the client or the server
//     gives up, then resets the connection.
//   - HangAfter: handled, then held the same way.
//   - AwaitCaller: waits until the client gives up or Rule.Delay passes,
//     calls Rule.OnRelease, then handles the request all the same.
//   - Pass: handled normally.
//
// Rule.OnMatch runs first, whatever the action.
type Faults struct {
	Rules  *fakes.Rules
	Server *Server
	// Unavailable answers FailBefore and FailAfter alike, so that the
	// caller cannot tell whether the effect happened.
	Unavailable Reply
	// Closing answers a Delay cut short by Close.
	Closing Reply
	// Ledger, if set, is where an effect that handling the request
	// recorded (Reply.Effect) is marked unanswered when the caller has
	// hung up by the time the reply is due.
	Ledger *fakes.Ledger
	// Custom, if set, is asked about an action Faults does not know,
	// before the request is handled: it returns the reply to send instead,
	// or ok=false to handle the request normally.
	Custom func(fakes.Rule) (rp Reply, ok bool)
}

// Serve consumes the first rule matching markers and applies it around
// handle, which does the request's work (recording any effect) and returns
// its reply.
func (f Faults) Serve(w http.ResponseWriter, r *http.Request, markers []string, handle func() Reply) {
	rule, faulty := f.Rules.Take(markers)
	if faulty && rule.OnMatch != nil {
		rule.OnMatch()
	}
	if faulty {
		switch rule.Action {
		case fakes.Hang:
			f.Server.Wait(r.Context(), forever)
			ResetConnection(w)
			return
		case fakes.FailBefore:
			f.Unavailable.Write(w)
			return
		case fakes.Delay:
			if !f.Server.Wait(r.Context(), rule.Delay) {
				if r.Context().Err() == nil { // the server is closing
					f.Closing.Write(w)
				}
				return
			}
		case fakes.AwaitCaller:
			f.Server.Wait(r.Context(), rule.Delay)
			if rule.OnRelease != nil {
				rule.OnRelease()
			}
		case fakes.FailAfter, fakes.ResetAfter, fakes.HangAfter, fakes.Pass:
		default:
			if f.Custom != nil {
				if rp, ok := f.Custom(rule); ok {
					rp.Write(w)
					return
				}
			}
		}
	}

	rp := handle()
	if f.Ledger != nil && rp.Effect != 0 && r.Context().Err() != nil {
		// The caller gave up on the call while it was handled: whatever
		// it answered its own caller, it did not learn of this effect.
		f.Ledger.MarkUnanswered(rp.Effect)
	}

	if faulty {
		switch rule.Action {
		case fakes.FailAfter:
			f.Unavailable.Write(w)
			return
		case fakes.ResetAfter:
			ResetConnection(w)
			return
		case fakes.HangAfter:
			f.Server.Wait(r.Context(), forever)
			ResetConnection(w)
			return
		}
	}
	watchReply(r, f.Ledger, rp.Effect)
	rp.Write(w)
}
