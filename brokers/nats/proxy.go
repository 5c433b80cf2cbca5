package nats

import (
	"bufio"
	"context"
	"strings"

	"github.com/idemcheck/idemcheck/brokers"
	"github.com/idemcheck/idemcheck/brokers/internal/tcpproxy"
)

// up carries what a consumer sends to the server: it observes acks and
// carries out DropAck and DelayAck.
func (b *Broker) up(c *tcpproxy.Conn, r *bufio.Reader, w *tcpproxy.Writer) error {
	for {
		f, err := readFrame(r)
		if err != nil {
			return err
		}
		flush := r.Buffered() == 0
		if (f.op == "PUB" || f.op == "HPUB") && strings.HasPrefix(f.subject, "$JS.ACK.") {
			if !b.ack(c, f) {
				if flush {
					if err := w.Write(nil, true); err != nil {
						return err
					}
				}
				continue
			}
		}
		if err := w.Write(f.bytes(), flush); err != nil {
			return err
		}
	}
}

// ack observes one ack and reports whether to pass it on now.
func (b *Broker) ack(c *tcpproxy.Conn, f *frame) bool {
	info, ok := parseAckSubject(f.subject)
	if !ok {
		return true
	}
	id := b.eventAt(info.streamSeq)
	if id == "" {
		return true
	}
	kind := classifyAck(f.body())
	obs := brokers.Observation{EventID: id, Attempt: info.delivered, Conn: c.ID, Detail: strings.TrimSpace(string(f.body()))}
	switch kind {
	case ackProgress:
		return true
	case ackNegative:
		obs.Kind = brokers.Nacked
		b.log.Record(obs)
		return true
	}
	if _, ok := b.armed.Take(brokers.DropAck, id); ok {
		obs.Kind = brokers.AckDropped
		b.log.Record(obs)
		return false
	}
	if flt, ok := b.armed.Take(brokers.DelayAck, id); ok {
		obs.Kind = brokers.AckHeld
		held := b.log.Record(obs)
		b.holds.Add(1)
		go b.release(c, f.bytes(), held, flt)
		return false
	}
	obs.Kind = brokers.Acked
	b.log.Record(obs)
	return true
}

// release passes a held ack on once the event has been delivered again
// after it was held, or once the fault's hold has passed.
func (b *Broker) release(c *tcpproxy.Conn, raw []byte, held brokers.Observation, f brokers.Fault) {
	defer b.holds.Done()
	ctx, cancel := context.WithTimeout(b.life, f.HoldOrDefault())
	defer cancel()
	_ = b.log.WaitFunc(ctx, func(obs []brokers.Observation) bool {
		for _, o := range obs[held.Seq:] {
			if o.Kind == brokers.Delivered && o.EventID == held.EventID {
				return true
			}
		}
		return false
	}, nil)
	if b.life.Err() != nil {
		return
	}
	if err := c.ToServer.Write(raw, true); err != nil {
		b.log.Record(brokers.Observation{Kind: brokers.AckReleased, EventID: held.EventID, Attempt: held.Attempt, Conn: c.ID,
			Detail: "lost: the consumer's connection had closed: " + err.Error()})
		return
	}
	b.log.Record(brokers.Observation{Kind: brokers.AckReleased, EventID: held.EventID, Attempt: held.Attempt, Conn: c.ID})
	b.log.Record(brokers.Observation{Kind: brokers.Acked, EventID: held.EventID, Attempt: held.Attempt, Conn: c.ID, Detail: "late"})
}

// down carries what the server sends to a consumer: it observes
// deliveries.
func (b *Broker) down(c *tcpproxy.Conn, r *bufio.Reader, w *tcpproxy.Writer) error {
	for {
		f, err := readFrame(r)
		if err != nil {
			return err
		}
		if (f.op == "MSG" || f.op == "HMSG") && strings.HasPrefix(f.reply, "$JS.ACK.") {
			if info, ok := parseAckSubject(f.reply); ok {
				id := f.header(brokers.HeaderEventID)
				if id != "" {
					b.learn(info.streamSeq, id)
				} else {
					id = b.eventAt(info.streamSeq)
				}
				if id != "" {
					b.log.Record(brokers.Observation{Kind: brokers.Delivered, EventID: id, Attempt: info.delivered, Conn: c.ID})
				}
			}
		}
		if err := w.Write(f.bytes(), r.Buffered() == 0); err != nil {
			return err
		}
	}
}
