package httpfake

import (
	"net/http"

	"github.com/idemcheck/idemcheck/fakes"
)

// ControlPrefix starts the path of every control endpoint. The API a
// target calls never serves it: a target that sends DELETE
// /_idemcheck/rules to the address it was given gets 404, and the faults
// armed for it stay armed.
const ControlPrefix = "/_idemcheck/"

// maxControlBytes bounds a control request's body (a rule is a few dozen
// bytes).
const maxControlBytes = 64 << 10

// Control is a fake's control API: its ledger, its fault rules and how
// often they fired, and any reads of its own (the webhook sink's
// deliveries). It is served on a listener of its own (ServeControl), never
// on the address a target is given, so that a target cannot disarm the
// faults armed for it, read the ledger or reset anything.
//
//	GET    /_idemcheck/ledger           the ledger, as a JSON array of fakes.Effect
//	POST   /_idemcheck/rules            arm the fakes.Rule in the JSON body; 204
//	DELETE /_idemcheck/rules            disarm every rule not yet used up; 204
//	GET    /_idemcheck/fired?marker=M   {"marker":M,"fired":N}: how many requests the rules armed for M acted on
type Control struct {
	// Ledger is the fake's ledger.
	Ledger *fakes.Ledger
	// Arm, Disarm and Fired act on the fake's rules (its Arm, Disarm and
	// Fired methods).
	Arm    func(fakes.Rule)
	Disarm func()
	Fired  func(marker string) int
	// Known and Extra accept and name the fake's own actions, as in
	// DecodeRule.
	Known func(fakes.Action) bool
	Extra string
	// Failure is the fake's error reply with status and message.
	Failure func(status int, msg string) Reply
	// Routes, if set, adds the fake's own control endpoints to mux (their
	// patterns under ControlPrefix).
	Routes func(mux *http.ServeMux)
}

// Handler returns the control API's handler.
func (c Control) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+ControlPrefix+"ledger", func(w http.ResponseWriter, _ *http.Request) {
		effects := c.Ledger.Effects()
		if effects == nil {
			effects = []fakes.Effect{}
		}
		JSON(http.StatusOK, effects).Write(w)
	})
	mux.HandleFunc("POST "+ControlPrefix+"rules", func(w http.ResponseWriter, r *http.Request) {
		rule, err := DecodeRule(r.Body, c.Known, c.Extra)
		if err != nil {
			c.Failure(http.StatusBadRequest, "invalid rule: "+err.Error()).Write(w)
			return
		}
		c.Arm(rule)
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("DELETE "+ControlPrefix+"rules", func(w http.ResponseWriter, _ *http.Request) {
		c.Disarm()
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("GET "+ControlPrefix+"fired", func(w http.ResponseWriter, r *http.Request) {
		m := r.URL.Query().Get("marker")
		if found := fakes.FindMarkers([]byte(m)); len(found) != 1 || found[0] != m {
			c.Failure(http.StatusBadRequest, "give the marker a rule was armed for: ?marker=idem-0123456789abcdef").Write(w)
			return
		}
		JSON(http.StatusOK, map[string]any{"marker": m, "fired": c.Fired(m)}).Write(w)
	})
	if c.Routes != nil {
		c.Routes(mux)
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		c.Failure(http.StatusNotFound, "no such control endpoint: "+r.Method+" "+r.URL.Path+
			"; the control API serves GET "+ControlPrefix+"ledger, POST and DELETE "+ControlPrefix+"rules, GET "+ControlPrefix+"fired?marker=…").Write(w)
	})
	return http.MaxBytesHandler(mux, maxControlBytes)
}

// ControlURL is s's URL, "" for a nil s (no control API).
func ControlURL(s *Server) string {
	if s == nil {
		return ""
	}
	return s.URL()
}

// CloseControl closes s, if there is one.
func CloseControl(s *Server) error {
	if s == nil {
		return nil
	}
	return s.Close()
}

// ServeControl serves c on addr, which must be loopback, until the
// returned Server is closed. An empty addr serves nothing: it returns nil.
// The name prefixes errors (the fake's name).
func ServeControl(name, addr string, c Control) (*Server, error) {
	if addr == "" {
		return nil, nil
	}
	ln, err := Listen(name+" control", addr)
	if err != nil {
		return nil, err
	}
	return Serve(name+" control", ln, c.Handler()), nil
}
