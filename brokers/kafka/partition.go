package kafka

import "sort"

// partition is what the broker knows of one partition: the events
// published to it by offset, how far the group's member has fetched, and
// what it has committed.
type partition struct {
	offsets []int64 // ascending
	ids     []string
	// fetched is the offset the owning member will fetch next: every
	// event below it has been handed to the member.
	fetched int64
	// committed is the group's committed offset, as stored.
	committed int64
	// unacked holds the offsets of the events delivered since the last
	// commit that covered them: the next commit covering one is its ack,
	// even when it does not move the committed offset (a member that read
	// the partition again commits the same offset a second time).
	unacked map[int64]string
}

func (b *Broker) part(p int32) *partition {
	pt := b.parts[p]
	if pt == nil {
		pt = &partition{unacked: map[int64]string{}}
		b.parts[p] = pt
	}
	return pt
}

// add records that offset holds event id.
func (pt *partition) add(offset int64, id string) {
	i := sort.Search(len(pt.offsets), func(i int) bool { return pt.offsets[i] >= offset })
	pt.offsets = append(pt.offsets, 0)
	pt.ids = append(pt.ids, "")
	copy(pt.offsets[i+1:], pt.offsets[i:])
	copy(pt.ids[i+1:], pt.ids[i:])
	pt.offsets[i], pt.ids[i] = offset, id
}

// between returns the indexes of the events at offsets from (inclusive)
// to to (exclusive).
func (pt *partition) between(from, to int64) []int {
	i := sort.Search(len(pt.offsets), func(i int) bool { return pt.offsets[i] >= from })
	var out []int
	for ; i < len(pt.offsets) && pt.offsets[i] < to; i++ {
		out = append(out, i)
	}
	return out
}

// offsetOf returns the offset of event id, -1 if it is not on the
// partition.
func (pt *partition) offsetOf(id string) int64 {
	for i, x := range pt.ids {
		if x == id {
			return pt.offsets[i]
		}
	}
	return -1
}

// covered removes and returns, in offset order, the delivered events below
// offset.
func (pt *partition) covered(offset int64) []string {
	var offs []int64
	for o := range pt.unacked {
		if o < offset {
			offs = append(offs, o)
		}
	}
	sort.Slice(offs, func(i, j int) bool { return offs[i] < offs[j] })
	ids := make([]string, 0, len(offs))
	for _, o := range offs {
		ids = append(ids, pt.unacked[o])
		delete(pt.unacked, o)
	}
	return ids
}
