package config_test

import "time"

// hangGuard bounds an end-to-end run in a test: long enough for a loaded
// machine (these runs take seconds to a few minutes), short of go test's
// own -timeout, so that a hang fails its test with the run's own error
// rather than a dump of every goroutine.
const hangGuard = 6 * time.Minute
