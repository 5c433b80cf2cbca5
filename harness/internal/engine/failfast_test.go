package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/idemcheck/idemcheck/record"
)

// TestFailureWay: two attempts fail the same way when they differ only in
// digits (ids, keys, times), or when both replies were cut, however much
// of each was counted (the fault proxy counts what arrived, a burst's copy
// stops reading at its cap), or when one was cut and the other's body did
// not arrive whole (a body that never ends, read on a slower machine),
// whatever status came with each; a timeout before any reply and a cut
// reply are two ways, as are two statuses of replies read whole.
func TestFailureWay(t *testing.T) {
	cut := func(msg string) record.Attempt {
		return record.Attempt{Reply: record.Reply{Outcome: record.Info, Status: 200, Error: msg}}
	}
	proxied := cut(record.ReplyCut + ": 68157441 bytes arrived, more than the 1048576 kept")
	copied := cut(record.ReplyCut + ": more than the 1048576 bytes kept arrived")
	assert.Equal(t, failureWay(proxied), failureWay(copied))
	unfinished := cut(record.ReplyUnfinished + ": reading the reply: context deadline exceeded (read tcp 127.0.0.1:5->127.0.0.1:6: i/o timeout)")
	assert.Equal(t, failureWay(proxied), failureWay(unfinished))
	unfinishedCopy := cut(record.ReplyUnfinished + ": burst copy 3 of 20: reading the reply's body: context deadline exceeded")
	assert.Equal(t, failureWay(copied), failureWay(unfinishedCopy))

	timeout := record.Attempt{Reply: record.Reply{Outcome: record.Info, Error: "no reply within 2s (the client gave up)"}}
	assert.NotEqual(t, failureWay(proxied), failureWay(timeout))
	assert.Equal(t, failureWay(timeout), failureWay(record.Attempt{Reply: record.Reply{Outcome: record.Info, Error: "no reply within 5s (the client gave up)"}}))

	proxiedUnfinished := unfinished
	proxiedUnfinished.Status = 0
	assert.Equal(t, failureWay(copied), failureWay(proxiedUnfinished))

	answered := record.Attempt{Reply: record.Reply{Outcome: record.Info, Status: 503}}
	other := answered
	other.Status = 500
	assert.NotEqual(t, failureWay(answered), failureWay(other))
}
