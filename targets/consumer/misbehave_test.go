package consumer_test

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/targets/consumer"
	"github.com/idemcheck/idemcheck/targets/process"
)

// badSpec is a consumer that misbehaves as mode says (see TestMain), with
// a short ack timeout so that the run ends quickly.
func badSpec(mode string) harness.Spec {
	cfg := consumer.Config{
		Name: "bad-" + mode, AckWait: 300 * time.Millisecond, Timeout: time.Second,
		Events: []consumer.Event{{Name: "charge", Payload: `{"amount":100,"description":"order {{marker}}"}`}},
	}
	launch := &consumer.Launch{Command: []string{os.Args[0]}, Env: map[string]string{childEnv: mode}}
	return consumer.Spec(cfg, launch, paymentsFake)
}

// A consumer that never subscribes, one that acknowledges nothing (its
// every charge fails, so it asks for each event again), and one that dies
// at once: each is untestable with a reason, within a bounded time, and
// leaves no process behind.
func TestMisbehavingConsumers(t *testing.T) {
	for _, tc := range []struct {
		why  string
		spec harness.Spec
		want string
	}{
		{"never subscribes", badSpec("idle"), "acknowledged no event"},
		{"acks nothing", refSpecTimeout(time.Second, "nats", "correct", "--payments", "http://127.0.0.1:1"), "acknowledged no event"},
		{"dies at once", badSpec("exit"), "exited on its own"},
	} {
		t.Run(tc.why, func(t *testing.T) {
			spec := tc.spec
			start := time.Now()
			tr := verify(t, spec)
			t.Logf("%s: %s", time.Since(start).Round(time.Millisecond), tr.Error)
			assert.Contains(t, tr.Error, tc.want)
			if tc.want == "acknowledged no event" {
				// It names the topic and the address the consumer was
				// given, and the setting to raise: a consumer answers by
				// acknowledging, not by a reply.
				assert.Regexp(t, `subscribes to topic "[^"{]+" at [^ {]+ as group`, tr.Error)
				assert.Contains(t, tr.Error, "raise broker.timeout if it is just slow")
				assert.NotContains(t, tr.Error, "no reply")
			}
			assert.Less(t, time.Since(start), 90*time.Second)
			assert.Empty(t, process.FindTagged(childEnv, ""), "a consumer left running")
		})
	}
}
