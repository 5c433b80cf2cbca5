package faults

// NameClientDisconnect is the name of the ClientDisconnect fault.
const NameClientDisconnect = "client-disconnect"

// ClientDisconnect is a client that goes away while the target works: the
// request is forwarded bound to the client's connection (unlike every other
// proxy fault, the target sees the client leave), and the harness cancels
// the request at the moment the target's downstream call for the intent
// reaches the fake, before the fake acts on it. The client then retries with
// the same key. A correct target finishes or undoes its work whatever its
// caller does; one that does its idempotency bookkeeping on the request's
// context fails to record the outcome and leaves the key stuck in progress,
// or forgets it and acts again.
//
// What the client sees: no reply (info).
type ClientDisconnect struct{}

// Name implements Fault.
func (*ClientDisconnect) Name() string { return NameClientDisconnect }

// DisconnectsAtDownstream implements DisconnectFault.
func (*ClientDisconnect) DisconnectsAtDownstream() {}

// Intercept implements ProxyFault: forward bound to the client, and reset
// the client's connection (it has gone, or is about to).
func (*ClientDisconnect) Intercept(ex Exchange) {
	forwardBound(ex)
	ex.Reset()
}

// DisconnectFault is a fault whose client leaves while the target works:
// the harness cancels the attempt when the target's downstream call for it
// reaches a fake (see ClientDisconnect).
type DisconnectFault interface {
	Fault
	DisconnectsAtDownstream()
}

// BoundForwarder is the ability of an Exchange to forward bound to the
// client: when the client goes away the request to the target is
// cancelled too. The Proxy's exchanges have it.
type BoundForwarder interface {
	ForwardBound() (*Upstream, error)
}

func forwardBound(ex Exchange) {
	if b, ok := ex.(BoundForwarder); ok {
		_, _ = b.ForwardBound()
		return
	}
	_, _ = ex.Forward()
}

// NotifyForwarded wraps a DisconnectFault for one attempt: gone is closed
// once the proxy's request to the target has ended (answered, or cancelled
// because the client left), so the harness knows that the target has seen
// its caller leave.
func NotifyForwarded(f DisconnectFault, gone chan<- struct{}) ProxyFault {
	return &notifyForwarded{f: f, gone: gone}
}

type notifyForwarded struct {
	f    DisconnectFault
	gone chan<- struct{}
}

func (n *notifyForwarded) Name() string { return n.f.Name() }

func (n *notifyForwarded) Intercept(ex Exchange) {
	forwardBound(ex)
	close(n.gone)
	ex.Reset()
}
