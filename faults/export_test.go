package faults

import "time"

// SetCloseWait makes Proxy.Close wait d for the exchanges in progress,
// until the returned function restores the wait.
func SetCloseWait(d time.Duration) (restore func()) {
	old := closeWait
	closeWait = d
	return func() { closeWait = old }
}
