package http

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/harness"
)

// TestFailedCallOfACutReply: a call whose client gave up while the proxy
// was still passing on a reply it cut (a body that never ends, read on a
// busy machine) is a reply whose body did not arrive whole, as one whose
// body the proxy saw stall is, not silence: so the first attempts at a
// target with an endless body fail one way whichever of the two each
// meets. A call that a fault made give up says the client gave up; so
// does one the proxy reports nothing unusual for.
func TestFailedCallOfACutReply(t *testing.T) {
	cctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Millisecond))
	defer cancel()
	gaveUp := os.ErrDeadlineExceeded
	cut := faults.Report{Forwarded: true, UpstreamStatus: 200, Cut: true, ReplyBytes: 54 << 20}
	stalled := faults.Report{Forwarded: true, UpstreamStatus: 200, BodyUnfinished: true, TimedOut: true, UpstreamError: "deadline"}
	for _, tc := range []struct {
		name    string
		rep     faults.Report
		faulted bool
		want    string
	}{
		{"cut", cut, false, harness.ReplyUnfinished + ": the target sent status 200, and its body had not ended after 2s"},
		{"stalled", stalled, false, harness.ReplyUnfinished + ": the target sent status 200, and its body had not ended after 2s"},
		{"cut, client-timeout fault", cut, true, "no reply within 2s (the client gave up)"},
		{"plain", faults.Report{Forwarded: true}, false, "no reply within 2s (the client gave up)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out harness.Reply
			failedCall(&out, tc.rep, true, tc.faulted, cctx, gaveUp, 2*time.Second)
			assert.Equal(t, harness.Info, out.Outcome)
			assert.True(t, out.TimedOut)
			assert.Zero(t, out.Status, "no status the client could act on")
			assert.Equal(t, tc.want, out.Error)
			assert.Equal(t, tc.want != "no reply within 2s (the client gave up)", strings.HasPrefix(out.Error, harness.ReplyUnfinished))
		})
	}
}
