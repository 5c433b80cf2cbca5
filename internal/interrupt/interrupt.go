package interrupt

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// Signals are the signals caught: an interruption, whichever way it comes.
var Signals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

var (
	caught   = make(chan os.Signal, 1)
	notified = make(chan struct{})
	release  sync.Once
)

func init() {
	signal.Notify(caught, Signals...)
	go func() {
		if _, ok := <-caught; ok {
			close(notified)
		}
	}()
}

// Notified is closed once one of Signals has been caught.
func Notified() <-chan struct{} { return notified }

// Context returns a context that is cancelled at the first of Signals,
// whether it came before the call or after, and the function that
// releases its resources. A signal that came before the call has
// cancelled the context by the time Context returns.
func Context(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	select {
	case <-notified:
		cancel()
		return ctx, cancel
	default:
	}
	go func() {
		select {
		case <-notified:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// Release stops catching: the signals' default actions apply again unless
// something else asked for them (signal.Notify). A program that does not
// want this package's handling (a test binary run as a helper) calls it
// first thing.
func Release() {
	release.Do(func() {
		signal.Stop(caught)
		close(caught) // no send follows Stop's return
	})
}
