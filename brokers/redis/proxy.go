package redis

import (
	"bufio"

	"context"
	"strings"
	"sync"
	"time"

	"github.com/idemcheck/idemcheck/brokers"
	"github.com/idemcheck/idemcheck/brokers/internal/tcpproxy"
)

// connState pairs a connection's replies with its commands: Redis answers
// the commands of one connection in order.
type connState struct {
	mu      sync.Mutex
	pending []string // command names awaiting their reply, oldest first
	// unpaired is set once the connection subscribes or monitors: its
	// replies no longer match its commands one for one.
	unpaired bool
}

func (s *connState) push(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	// A subscribed or monitoring connection gets replies that answer no
	// command. (CLIENT REPLY OFF would break the pairing too; no consumer
	// library sends it.)
	switch name {
	case "SUBSCRIBE", "PSUBSCRIBE", "SSUBSCRIBE", "MONITOR":
		s.unpaired = true
	}
	s.pending = append(s.pending, name)
}

func (s *connState) pop() (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.unpaired || len(s.pending) == 0 {
		return "", false
	}
	name := s.pending[0]
	s.pending = s.pending[1:]
	return name, true
}

func (b *Broker) state(c *tcpproxy.Conn) *connState {
	v, _ := b.conns.LoadOrStore(c, &connState{})
	return v.(*connState)
}

// up carries the consumer's commands: it observes XACK and carries out
// DropAck and DelayAck by acking the stream id 0-0 instead (the reply is
// still an integer, 0).
func (b *Broker) up(c *tcpproxy.Conn, r *bufio.Reader, w *tcpproxy.Writer) error {
	st := b.state(c)
	defer b.conns.Delete(c)
	rd := &reader{r: r}
	for {
		v, raw, err := rd.next()
		if err != nil {
			return err
		}
		args := v.args()
		if len(args) == 0 {
			if err := w.Write(raw, r.Buffered() == 0); err != nil {
				return err
			}
			continue
		}
		name := strings.ToUpper(string(args[0]))
		st.push(name)
		if name == "XACK" && len(args) >= 4 && string(args[1]) == b.Options().Topic {
			if rewritten := b.xack(c, args); rewritten != nil {
				raw = rewritten
			}
		}
		if err := w.Write(raw, r.Buffered() == 0); err != nil {
			return err
		}
	}
}

// xack observes XACK key group id…; it returns the command to send in its
// place when a fault keeps an id from the server, else nil.
func (b *Broker) xack(c *tcpproxy.Conn, args [][]byte) []byte {
	group := string(args[2])
	changed := false
	out := append([][]byte(nil), args...)
	for i := 3; i < len(out); i++ {
		entryID := string(out[i])
		id := b.ids.At(entryID)
		if id == "" {
			continue
		}
		b.settle(entryID, false)
		obs := brokers.Observation{EventID: id, Conn: c.ID, Detail: "XACK " + entryID}
		if _, ok := b.Take(brokers.DropAck, id); ok {
			obs.Kind = brokers.AckDropped
			b.Record(obs)
			out[i] = []byte("0-0")
			changed = true
			continue
		}
		if f, ok := b.Take(brokers.DelayAck, id); ok {
			obs.Kind = brokers.AckHeld
			held := b.Record(obs)
			b.Hold(held, f, func() { b.release(group, entryID, held) })
			out[i] = []byte("0-0")
			changed = true
			continue
		}
		obs.Kind = brokers.Acked
		b.Record(obs)
	}
	if !changed {
		return nil
	}
	return encodeCommand(out)
}

// release acks a held entry on the consumer's behalf, late.
func (b *Broker) release(group, entryID string, held brokers.Observation) {
	ctx, cancel := context.WithTimeout(b.Life(), 5*time.Second)
	defer cancel()
	obs := brokers.Observation{Kind: brokers.AckReleased, EventID: held.EventID, Conn: held.Conn, Detail: "XACK " + entryID}
	if err := b.client.XAck(ctx, b.Options().Topic, group, entryID).Err(); err != nil {
		obs.Detail += ": " + err.Error()
		b.Record(obs)
		return
	}
	b.Record(obs)
	obs.Kind, obs.Detail = brokers.Acked, "late XACK "+entryID
	b.Record(obs)
}

// down carries the server's replies: the entries in the replies to
// XREADGROUP, XCLAIM and XAUTOCLAIM are deliveries.
func (b *Broker) down(c *tcpproxy.Conn, r *bufio.Reader, w *tcpproxy.Writer) error {
	st := b.state(c)
	defer b.conns.Delete(c)
	rd := &reader{r: r}
	for {
		v, raw, err := rd.next()
		if err != nil {
			return err
		}
		if v.typ != '>' { // a push is out of band
			if name, ok := st.pop(); ok && (name == "XREADGROUP" || name == "XCLAIM" || name == "XAUTOCLAIM") {
				b.deliveries(c, name, v)
			}
		}
		if err := w.Write(raw, r.Buffered() == 0); err != nil {
			return err
		}
	}
}

func (b *Broker) deliveries(c *tcpproxy.Conn, cmd string, v value) {
	for _, e := range entries(v, nil) {
		id := e.fields[FieldEventID]
		if id == "" {
			id = b.ids.At(e.id)
		} else {
			b.ids.Learn(e.id, id)
		}
		if id == "" {
			continue
		}
		if b.settle(e.id, true) {
			// Redis Streams has no negative ack: an entry left pending
			// is delivered again only by a claim (or by its owner reading
			// its own pending entries after a restart), which gives up
			// the previous delivery.
			b.Record(brokers.Observation{Kind: brokers.Nacked, EventID: id, Conn: c.ID,
				Detail: "left pending, then delivered again by " + cmd + " " + e.id})
		}
		b.Record(brokers.Observation{Kind: brokers.Delivered, EventID: id, Conn: c.ID, Detail: cmd + " " + e.id})
	}
}

// settle records that entry id was delivered (open) or acked, and
// reports whether it had been delivered and not acked since.
func (b *Broker) settle(entryID string, open bool) bool {
	b.openMu.Lock()
	defer b.openMu.Unlock()
	if b.open == nil {
		b.open = map[string]bool{}
	}
	was := b.open[entryID]
	if open {
		b.open[entryID] = true
	} else {
		delete(b.open, entryID)
	}
	return was
}
