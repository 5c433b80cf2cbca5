package deps

import (
	"time"
)

// Control is the harness's handle on a proxy's intents, rules and events;
// every dependency proxy embeds one. The zero value is not ready: use
// NewControl.
type Control struct {
	attribution attribution
	rules       Rules
	events      Events
	validate    func(Rule) error
}

// NewControl returns an empty Control. validate, when not nil, checks what
// is the protocol's own in a rule (a SQLSTATE, an error prefix) when it is
// armed.
func NewControl(validate func(Rule) error) *Control { return &Control{validate: validate} }

// SetInFlight declares the intent in flight: statements that carry no
// marker, outside a transaction attributed to an intent, are attributed to
// it. The empty string clears it. The harness sets it while one intent
// runs alone, for targets observed by delta.
func (c *Control) SetInFlight(intent string) { c.attribution.set(intent) }

// InFlight returns the intent in flight, or "".
func (c *Control) InFlight() string { return c.attribution.get() }

// Attribute returns the intents a statement belongs to: the markers found
// in its text and parameters (see Markers); failing that, inherited (the
// intents of the transaction it runs in); failing that, the intent in
// flight; failing that, none.
func (c *Control) Attribute(markers, inherited []string) []string {
	if len(markers) > 0 {
		return markers
	}
	if len(inherited) > 0 {
		return inherited
	}
	if f := c.InFlight(); f != "" {
		return []string{f}
	}
	return nil
}

// Arm validates r and arms it.
func (c *Control) Arm(r Rule) (*Armed, error) {
	if c.validate != nil {
		if err := c.validate(r); err != nil {
			return nil, err
		}
	}
	return c.rules.Arm(r)
}

// Disarm removes the rules armed for intent that are still armed.
func (c *Control) Disarm(intent string) { c.rules.Disarm(intent) }

// Rules returns the armed rules.
func (c *Control) Rules() *Rules { return &c.rules }

// Events returns the proxy's event log.
func (c *Control) Events() *Events { return &c.events }

// Refusal is how a proxy turns away new connections while the harness has
// it refuse them (Proxy.RefuseNew).
type Refusal string

// The ways to refuse a connection.
const (
	// RefuseReset accepts each new connection and resets it at once, as a
	// database whose process is gone.
	RefuseReset Refusal = "reset"
	// RefuseStarting answers as a database that is starting up: for
	// PostgreSQL a FATAL 57P03 "the database system is starting up" to
	// the startup message; for Redis a -LOADING error to every command
	// but HELLO and AUTH, on every connection.
	RefuseStarting Refusal = "starting"
)

// Proxy is what the harness needs of a running dependency proxy.
type Proxy interface {
	// Protocol names the protocol spoken: "postgres", "redis".
	Protocol() string
	// Addr is the host:port the target connects to instead of the
	// database's.
	Addr() string
	// Upstream is the host:port of the real database.
	Upstream() string
	// Control attributes, arms rules and records events.
	Control() *Control
	// RefuseNew refuses new connections, in the way how, for d (until
	// AcceptNew when d is 0). Open connections are left alone: close them
	// with DropConnections for a database that restarts.
	RefuseNew(how Refusal, d time.Duration)
	// AcceptNew ends a refusal window early.
	AcceptNew()
	// DropConnections resets every open connection, the target's and
	// the database's.
	DropConnections()
	// Close stops accepting, closes every connection and waits for the
	// proxy's goroutines; hooks still running are told through their ctx.
	Close() error
}
