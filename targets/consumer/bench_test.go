package consumer_test

import (
	"context"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/harness"
)

// BenchmarkIntents measures intents per second through a consumer target:
// the correct reference consumer (a process) on the embedded NATS
// JetStream and on Kafka (kfake), judged by every probe and fault, the
// broker and the consumer started and stopped within the run. Each
// iteration is one whole run; "intents/s" is the run's intents over its
// duration, "s/run" the duration. The redelivery faults wait out the
// broker's ack deadline (500ms here), so the rate is the harness's, not
// the broker's (see brokers/PERFORMANCE.md for events per second through
// a broker alone).
func BenchmarkIntents(b *testing.B) {
	for _, broker := range []string{"nats", "kafka"} {
		b.Run(broker, func(b *testing.B) {
			intents, elapsed := 0, time.Duration(0)
			for i := 0; i < b.N; i++ {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
				res, err := harness.Verify(ctx, []harness.Spec{refSpec(broker, "correct", 1)}, harness.WithSeed(uint64(i+1)))
				cancel()
				if err != nil {
					b.Fatal(err)
				}
				tr := res.Targets[0]
				if tr.Error != "" || len(tr.Findings) > 0 || tr.Record == nil {
					b.Fatalf("unexpected: %s %d findings", tr.Error, len(tr.Findings))
				}
				intents += len(tr.Record.Intents)
				elapsed += tr.Duration
			}
			b.ReportMetric(float64(intents)/elapsed.Seconds(), "intents/s")
			b.ReportMetric(elapsed.Seconds()/float64(b.N), "s/run")
		})
	}
}
