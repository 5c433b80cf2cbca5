package brokers_test

import (
	"context"
	"fmt"
	"time"

	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/idemcheck/idemcheck/brokers"
	"github.com/idemcheck/idemcheck/brokers/nats"
)

// One intent, driven as the harness drives it: arm a fault for the event,
// publish it, let a consumer take it, and read what happened. The consumer
// here is a few lines in-process; the harness runs the consumer under test
// as a process with the placeholders on its command line.
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	b, err := nats.Start(ctx, brokers.Options{AckWait: 300 * time.Millisecond})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer b.Close()
	ph := b.Placeholders()

	// The consumer: acks every message it gets.
	nc, err := natsgo.Connect(ph[brokers.PlaceholderURL])
	if err != nil {
		fmt.Println(err)
		return
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	cons, err := js.Consumer(ctx, ph[brokers.PlaceholderStream], ph[brokers.PlaceholderGroup])
	if err != nil {
		fmt.Println(err)
		return
	}
	cc, _ := cons.Consume(func(m jetstream.Msg) { _ = m.Ack() })
	defer cc.Stop()

	ev := brokers.Event{ID: "evt_1", Payload: []byte(`{"description":"idem-0123456789abcdef"}`)}
	_ = b.Arm(brokers.Fault{Kind: brokers.DropAck, EventID: ev.ID})
	if _, err := b.Publish(ctx, ev); err != nil {
		fmt.Println(err)
		return
	}
	// The first ack is dropped: the event comes again after AckWait.
	if err := b.Log().Wait(ctx, brokers.Acked, ev.ID, 1); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("delivered:", b.Log().Count(brokers.Delivered, ev.ID))
	fmt.Println("acks dropped:", b.Log().Count(brokers.AckDropped, ev.ID))
	fmt.Println("acked:", b.Log().Count(brokers.Acked, ev.ID))
	// Output:
	// delivered: 2
	// acks dropped: 1
	// acked: 1
}
