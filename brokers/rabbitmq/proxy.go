package rabbitmq

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"sync"

	"github.com/idemcheck/idemcheck/brokers"
	"github.com/idemcheck/idemcheck/brokers/internal/tcpproxy"
)

// channelState is what the proxy knows of one channel of one connection.
type channelState struct {
	// gen changes whenever the channel is opened or closed: delivery tags
	// belong to one generation.
	gen  int
	tags map[uint64]string // delivery tag → event id
	// a basic.deliver or basic.get-ok waiting for its content header
	pending            bool
	pendingTag         uint64
	pendingRedelivered bool
}

// connState is the proxy's view of one connection's channels.
type connState struct {
	mu       sync.Mutex
	channels map[uint16]*channelState
}

func (s *connState) channel(n uint16) *channelState {
	c := s.channels[n]
	if c == nil {
		c = &channelState{tags: map[uint64]string{}}
		s.channels[n] = c
	}
	return c
}

// reset forgets a channel's deliveries: it was opened or closed. It
// returns the events delivered on it and not settled, which the node
// requeues when the channel closes.
func (s *connState) reset(n uint16) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.channel(n)
	ids := unsettled(c)
	c.gen++
	c.tags = map[uint64]string{}
	c.pending = false
	return ids
}

// resetAll forgets every channel: the connection closed.
func (s *connState) resetAll() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []string
	for _, c := range s.channels {
		ids = append(ids, unsettled(c)...)
		c.gen++
		c.tags = map[uint64]string{}
	}
	return ids
}

func unsettled(c *channelState) []string {
	tags := make([]uint64, 0, len(c.tags))
	for t := range c.tags {
		tags = append(tags, t)
	}
	sort.Slice(tags, func(i, j int) bool { return tags[i] < tags[j] })
	ids := make([]string, 0, len(tags))
	for _, t := range tags {
		ids = append(ids, c.tags[t])
	}
	return ids
}

// requeued records that the node took back the deliveries of events ids
// when a channel or the connection closed.
func (b *Broker) requeued(c *tcpproxy.Conn, ids []string, why string) {
	for _, id := range ids {
		b.Record(brokers.Observation{Kind: brokers.Nacked, EventID: id, Conn: c.ID, Detail: "requeued: " + why})
	}
}

func (b *Broker) state(c *tcpproxy.Conn) *connState {
	v, _ := b.conns.LoadOrStore(c, &connState{channels: map[uint16]*channelState{}})
	return v.(*connState)
}

// up carries the consumer's frames: it observes basic.ack, basic.nack and
// basic.reject, and carries out DropAck (the frame is not passed on) and
// DelayAck (it is passed on later, if its channel is still open).
func (b *Broker) up(c *tcpproxy.Conn, r *bufio.Reader, w *tcpproxy.Writer) error {
	st := b.state(c)
	defer b.conns.Delete(c)
	header := make([]byte, protocolHeaderLen)
	if _, err := io.ReadFull(r, header); err != nil {
		return err
	}
	if err := w.Write(header, true); err != nil {
		return err
	}
	for {
		f, err := readFrame(r)
		if err != nil {
			return err
		}
		flush := r.Buffered() == 0
		if class, method, args, ok := f.method(); ok {
			switch {
			case class == classChannel && (method == methodChannelOpen || method == methodChannelClose || method == methodChannelCloseOK):
				b.requeued(c, st.reset(f.channel), fmt.Sprintf("channel %d closed", f.channel))
			case class == classBasic && (method == methodBasicAck || method == methodBasicNack || method == methodBasicReject):
				if !b.ack(c, st, f, method, args) {
					if flush {
						if err := w.Write(nil, true); err != nil {
							return err
						}
					}
					continue
				}
			}
		}
		if err := w.Write(f.raw, flush); err != nil {
			return err
		}
	}
}

// ack observes one ack, nack or reject and reports whether to pass it on
// now.
func (b *Broker) ack(c *tcpproxy.Conn, st *connState, f *frame, method uint16, args []byte) bool {
	tag, multiple, err := ackTag(method, args)
	if err != nil {
		return true
	}
	st.mu.Lock()
	ch := st.channel(f.channel)
	var covered []uint64
	for t := range ch.tags {
		if t == tag || (multiple && t < tag) {
			covered = append(covered, t)
		}
	}
	sort.Slice(covered, func(i, j int) bool { return covered[i] < covered[j] })
	ids := make([]string, 0, len(covered))
	for _, t := range covered {
		ids = append(ids, ch.tags[t])
		delete(ch.tags, t)
	}
	gen := ch.gen
	st.mu.Unlock()

	detail := fmt.Sprintf("channel %d tag %d", f.channel, tag)
	if method != methodBasicAck {
		for _, id := range ids {
			b.Record(brokers.Observation{Kind: brokers.Nacked, EventID: id, Conn: c.ID, Detail: detail})
		}
		return true
	}
	var drop, hold bool
	var held brokers.Fault
	for _, id := range ids {
		if _, ok := b.Take(brokers.DropAck, id); ok {
			drop = true
		}
		if fl, ok := b.Take(brokers.DelayAck, id); ok {
			hold, held = true, fl
		}
	}
	kind := brokers.Acked
	switch {
	case drop:
		kind = brokers.AckDropped
	case hold:
		kind = brokers.AckHeld
	}
	var last brokers.Observation // the held event's
	for _, id := range ids {
		o := b.Record(brokers.Observation{Kind: kind, EventID: id, Conn: c.ID, Detail: detail})
		if id == held.EventID {
			last = o
		}
	}
	if hold && !drop && len(ids) > 0 {
		b.Hold(last, held, func() { b.release(c, st, f, gen, ids) })
		return false
	}
	return !drop
}

// release passes a held ack on, late, if the channel is still the one the
// ack was for; an ack for a channel the node has closed (its consumer
// timeout) is lost, as it would be on the wire.
func (b *Broker) release(c *tcpproxy.Conn, st *connState, f *frame, gen int, ids []string) {
	st.mu.Lock()
	open := st.channel(f.channel).gen == gen
	st.mu.Unlock()
	detail := fmt.Sprintf("channel %d", f.channel)
	if !open {
		for _, id := range ids {
			b.Record(brokers.Observation{Kind: brokers.AckReleased, EventID: id, Conn: c.ID, Detail: "lost: " + detail + " had closed"})
		}
		return
	}
	if err := c.ToServer.Write(f.raw, true); err != nil {
		for _, id := range ids {
			b.Record(brokers.Observation{Kind: brokers.AckReleased, EventID: id, Conn: c.ID, Detail: "lost: " + err.Error()})
		}
		return
	}
	for _, id := range ids {
		b.Record(brokers.Observation{Kind: brokers.AckReleased, EventID: id, Conn: c.ID, Detail: detail})
		b.Record(brokers.Observation{Kind: brokers.Acked, EventID: id, Conn: c.ID, Detail: "late"})
	}
}

// down carries the node's frames: a basic.deliver or basic.get-ok and the
// content header after it are a delivery (the event id is the message-id
// property); a channel.close from the node (a consumer timeout) ends the
// channel's deliveries.
func (b *Broker) down(c *tcpproxy.Conn, r *bufio.Reader, w *tcpproxy.Writer) error {
	st := b.state(c)
	defer b.conns.Delete(c)
	defer func() { b.requeued(c, st.resetAll(), "the connection closed") }()
	for {
		f, err := readFrame(r)
		if err != nil {
			return err
		}
		if class, method, args, ok := f.method(); ok {
			switch {
			case class == classChannel && (method == methodChannelClose || method == methodChannelCloseOK):
				b.requeued(c, st.reset(f.channel), fmt.Sprintf("channel %d closed by the node", f.channel))
			case class == classBasic && (method == methodBasicDeliver || method == methodBasicGetOK):
				if tag, redelivered, err := deliverTag(method, args); err == nil {
					st.mu.Lock()
					ch := st.channel(f.channel)
					ch.pending, ch.pendingTag, ch.pendingRedelivered = true, tag, redelivered
					st.mu.Unlock()
				}
			}
		} else if f.typ == frameHeader {
			b.delivered(c, st, f)
		}
		if err := w.Write(f.raw, r.Buffered() == 0); err != nil {
			return err
		}
	}
}

func (b *Broker) delivered(c *tcpproxy.Conn, st *connState, f *frame) {
	st.mu.Lock()
	ch := st.channel(f.channel)
	if !ch.pending {
		st.mu.Unlock()
		return
	}
	ch.pending = false
	tag, redelivered := ch.pendingTag, ch.pendingRedelivered
	id, err := messageID(f.payload)
	if err == nil && id != "" {
		ch.tags[tag] = id
	}
	st.mu.Unlock()
	if err != nil || id == "" {
		return
	}
	detail := fmt.Sprintf("channel %d tag %d", f.channel, tag)
	if redelivered {
		detail += " redelivered"
	}
	b.Record(brokers.Observation{Kind: brokers.Delivered, EventID: id, Conn: c.ID, Detail: detail})
}
