package faults

// Names of the crash faults.
const (
	NameCrashBeforeEffect = "crash-before-effect"
	NameCrashAfterEffect  = "crash-after-effect"
	NameCrashAfterReply   = "crash-after-reply"
)

// Crash kills the target at Point. The harness does the killing, because
// the points are where it can see: the fakes tell it when a downstream call
// arrives and when an effect is recorded, and the proxy when the target has
// replied. These are events, not timed guesses.
type Crash struct {
	Point CrashPoint `json:"-"`
}

// Name implements Fault.
func (f *Crash) Name() string { return "crash-" + string(f.Point) }

// CrashPoint implements CrashFault.
func (f *Crash) CrashPoint() CrashPoint { return f.Point }

// KillAfterReply returns the proxy half of a crash after the reply: forward
// the request, and once the target has replied, call kill (which must
// return only when the target is dead), then reset the client's connection.
func KillAfterReply(name string, kill func()) ProxyFault {
	return &killAfterReply{name: name, kill: kill}
}

type killAfterReply struct {
	name string
	kill func()
}

func (k *killAfterReply) Name() string { return k.name }

func (k *killAfterReply) Intercept(ex Exchange) {
	_, _ = ex.Forward()
	k.kill()
	ex.Reset()
}
