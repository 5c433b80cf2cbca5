package faults

import (
	"time"

	"github.com/idemcheck/idemcheck/deps"
)

// NameDepRefuse is the registered name of DepRefuse.
const NameDepRefuse = "dep-refuse"

// DepRefuse restarts the target's database as the attempt starts: every
// open connection is reset, and new ones are refused for Window (for
// PostgreSQL with FATAL 57P03 "the database system is starting up", for
// Redis with -LOADING). The attempt fails; the retries with the same key
// come once the window is over. A correct target answers the attempt
// with a failure it does not keep, and completes the intent on the retry.
type DepRefuse struct {
	dep
	// Window is how long new connections are refused. Default 300ms.
	Window Duration `json:"window"`
}

// Name implements Fault.
func (*DepRefuse) Name() string { return NameDepRefuse }

// Validate refuses a window that is not above zero.
func (f *DepRefuse) Validate() error {
	if f.Window <= 0 {
		return invalid("window", "must be above zero, got %s", time.Duration(f.Window))
	}
	return nil
}

// DepRule implements DependencyFault: nothing is armed for the intent's
// statements; the proxy refuses connections instead (RefuseWindow).
func (f *DepRefuse) DepRule(intent string) deps.Rule { return deps.Rule{} }

// RefuseWindow implements Refuser.
func (f *DepRefuse) RefuseWindow() time.Duration {
	return max(time.Duration(f.Window), time.Millisecond)
}
