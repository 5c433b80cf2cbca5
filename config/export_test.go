package config

import "time"

// SetReadTimeout sets how long a FIFO's writer is waited for, for a test,
// and returns what restores it.
func SetReadTimeout(d time.Duration) (restore func()) {
	old := readTimeout
	readTimeout = d
	return func() { readTimeout = old }
}
