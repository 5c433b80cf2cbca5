package kafka

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/idemcheck/idemcheck/brokers"
)

// The control hooks run on kfake's request loop, one at a time; they must
// not block.

// ours reports whether a request's topic (by name or, from OffsetCommit
// v10 and Fetch v13 on, by id) is the broker's topic.
func (b *Broker) ours(name string, id [16]byte) bool {
	return name == b.Options().Topic || (name == "" && id == b.topicID)
}

// onFetch observes deliveries. A fetch from offset f means that the member
// has been handed every record below f: those between the previous fetch
// position and f are recorded as delivered. A fetch below the previous
// position (after a rebalance or a restart, from the committed offset)
// rewinds it: the records from there are delivered again.
func (b *Broker) onFetch(kreq kmsg.Request) (kmsg.Response, error, bool) {
	req := kreq.(*kmsg.FetchRequest)
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, t := range req.Topics {
		if !b.ours(t.Topic, t.TopicID) {
			continue
		}
		for _, p := range t.Partitions {
			pt := b.part(p.Partition)
			if p.FetchOffset <= pt.fetched {
				pt.fetched = p.FetchOffset
				continue
			}
			for _, i := range pt.between(pt.fetched, p.FetchOffset) {
				b.deliveredLocked(pt, pt.offsets[i], pt.ids[i], "fetched")
			}
			pt.fetched = p.FetchOffset
		}
	}
	return nil, nil, false
}

// onCommit observes offset commits of the group and carries out DropAck:
// a commit that would cover an armed event is answered as stored, and not
// stored.
func (b *Broker) onCommit(kreq kmsg.Request) (kmsg.Response, error, bool) {
	req := kreq.(*kmsg.OffsetCommitRequest)
	if req.Group != b.Options().Group {
		return nil, nil, false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	type commit struct {
		pt  *partition
		off int64
	}
	var commits []commit
	drop := false
	for _, t := range req.Topics {
		if !b.ours(t.Topic, t.TopicID) {
			continue
		}
		for _, p := range t.Partitions {
			pt := b.part(p.Partition)
			// A member commits only past what it was handed: a commit
			// that overtook the next fetch is a delivery too.
			if p.Offset > pt.fetched {
				for _, i := range pt.between(pt.fetched, p.Offset) {
					b.deliveredLocked(pt, pt.offsets[i], pt.ids[i], "fetched (seen by its commit)")
				}
				pt.fetched = p.Offset
			}
			commits = append(commits, commit{pt, p.Offset})
			for o, id := range pt.unacked {
				if o < p.Offset && b.Armed(brokers.DropAck, id) {
					drop = true
				}
			}
		}
	}
	obs := brokers.Observation{Kind: brokers.Acked, Conn: req.MemberID, Detail: "offset commit"}
	if drop {
		obs.Kind = brokers.AckDropped
	}
	for _, c := range commits {
		for _, id := range c.pt.covered(c.off) {
			if drop {
				b.Take(brokers.DropAck, id)
			}
			obs.EventID = id
			b.Record(obs)
		}
		if !drop {
			c.pt.committed = c.off
		}
	}
	if !drop {
		return nil, nil, false
	}
	b.cluster.KeepControl()
	return storedCommit(req), nil, true
}

// storedCommit is the answer to req as if every offset had been stored.
func storedCommit(req *kmsg.OffsetCommitRequest) kmsg.Response {
	resp := req.ResponseKind().(*kmsg.OffsetCommitResponse)
	resp.Version = req.Version
	for _, t := range req.Topics {
		rt := kmsg.NewOffsetCommitResponseTopic()
		rt.Topic, rt.TopicID = t.Topic, t.TopicID
		for _, p := range t.Partitions {
			rp := kmsg.NewOffsetCommitResponseTopicPartition()
			rp.Partition = p.Partition
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	return resp
}

// startRebalanceLocked makes the group rebalance: heartbeats are answered
// REBALANCE_IN_PROGRESS until a member joins again.
func (b *Broker) startRebalanceLocked(id string) {
	b.rebalance = true
	b.rebalEvent = id
}

// deliveredLocked records a delivery of event id at offset off of pt, and
// starts the rebalance armed for it.
func (b *Broker) deliveredLocked(pt *partition, off int64, id, detail string) {
	pt.unacked[off] = id
	b.Record(brokers.Observation{Kind: brokers.Delivered, EventID: id, Detail: detail})
	if _, ok := b.Take(brokers.Rebalance, id); ok {
		b.startRebalanceLocked(id)
	}
}

// fetchedLocked reports whether event id has been fetched.
func (b *Broker) fetchedLocked(id string) bool {
	for _, pt := range b.parts {
		if off := pt.offsetOf(id); off >= 0 && off < pt.fetched {
			return true
		}
	}
	return false
}

// onHeartbeat answers the group's heartbeats REBALANCE_IN_PROGRESS while a
// Rebalance fault is under way.
func (b *Broker) onHeartbeat(kreq kmsg.Request) (kmsg.Response, error, bool) {
	req := kreq.(*kmsg.HeartbeatRequest)
	b.mu.Lock()
	defer b.mu.Unlock()
	if req.Group != b.Options().Group || !b.rebalance {
		return nil, nil, false
	}
	b.Record(brokers.Observation{Kind: brokers.Rebalanced, EventID: b.rebalEvent, Conn: req.MemberID,
		Detail: "heartbeat answered REBALANCE_IN_PROGRESS"})
	resp := req.ResponseKind().(*kmsg.HeartbeatResponse)
	resp.Version = req.Version
	resp.ErrorCode = kerr.RebalanceInProgress.Code
	b.cluster.KeepControl()
	return resp, nil, true
}

// onJoin ends a Rebalance fault: a member has rejoined the group.
func (b *Broker) onJoin(kreq kmsg.Request) (kmsg.Response, error, bool) {
	req := kreq.(*kmsg.JoinGroupRequest)
	b.mu.Lock()
	defer b.mu.Unlock()
	if req.Group == b.Options().Group {
		b.rebalance = false
	}
	return nil, nil, false
}
