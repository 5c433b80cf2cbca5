package nats

import (
	"bufio"
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
	id := b.ids.At(info.streamSeq)
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
		b.Record(obs)
		return true
	}
	if _, ok := b.Take(brokers.DropAck, id); ok {
		obs.Kind = brokers.AckDropped
		b.Record(obs)
		return false
	}
	if flt, ok := b.Take(brokers.DelayAck, id); ok {
		obs.Kind = brokers.AckHeld
		held := b.Record(obs)
		raw := f.bytes()
		b.Hold(held, flt, func() { b.release(c, raw, held) })
		return false
	}
	obs.Kind = brokers.Acked
	b.Record(obs)
	return true
}

// release passes a held ack on, late.
func (b *Broker) release(c *tcpproxy.Conn, raw []byte, held brokers.Observation) {
	if err := c.ToServer.Write(raw, true); err != nil {
		b.Record(brokers.Observation{Kind: brokers.AckReleased, EventID: held.EventID, Attempt: held.Attempt, Conn: c.ID,
			Detail: "lost: the consumer's connection had closed: " + err.Error()})
		return
	}
	b.Record(brokers.Observation{Kind: brokers.AckReleased, EventID: held.EventID, Attempt: held.Attempt, Conn: c.ID})
	b.Record(brokers.Observation{Kind: brokers.Acked, EventID: held.EventID, Attempt: held.Attempt, Conn: c.ID, Detail: "late"})
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
					b.ids.Learn(info.streamSeq, id)
				} else {
					id = b.ids.At(info.streamSeq)
				}
				if id != "" {
					b.Record(brokers.Observation{Kind: brokers.Delivered, EventID: id, Attempt: info.delivered, Conn: c.ID})
				}
			}
		}
		if err := w.Write(f.bytes(), r.Buffered() == 0); err != nil {
			return err
		}
	}
}
