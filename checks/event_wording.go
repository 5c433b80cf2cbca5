package checks

import (
	"github.com/idemcheck/idemcheck/internal/lazyregexp"
	"github.com/idemcheck/idemcheck/record"
)

// eventWording rewrites what a finding says of a caller's key and its
// requests as what it says of an event and its deliveries, for a target
// whose key is an event's id: a queue consumer (record.Capabilities.
// Redelivery), for which a retry is the event published again, in
// consumer, and a webhook handler (EventKeys without Redelivery), for
// which it is the sender delivering the event again, in webhook. An empty
// rewrite leaves the phrase as it is for that target.
var eventWording = []struct {
	re                *lazyregexp.Regexp
	consumer, webhook string
}{
	{lazyregexp.New(`the same key sent (\d+) times`), "the same event published $1 times", "the same event delivered $1 times"},
	{lazyregexp.New(`the retry with the same key`), "the same event published again", "the event delivered again"},
	{lazyregexp.New(`retrying with the same key caused`), "delivering the event again caused", "delivering the event again caused"},
	{lazyregexp.New(`(\d+) same-key requests released together`), "$1 copies of one event published together", "$1 deliveries of one event released together"},
	{lazyregexp.New(`(\d+) same-key requests`), "$1 copies of one event", "$1 deliveries of one event"},
	{lazyregexp.New(`: the key is not honoured at all`), ": the event id is not recognised as processed at all", ": the event id is not recognised as processed at all"},
	{lazyregexp.New(`: the key is not honoured`), ": the consumer did not recognise the event id as processed", ": the handler did not recognise the event id as processed"},
	{lazyregexp.New(`a retry one at a time acted again too`), "the event published again one at a time acted again too", "the event delivered again one at a time acted again too"},
	{lazyregexp.New(`the key is checked and claimed in two steps`), "the event id is checked and claimed in two steps", "the event id is checked and claimed in two steps"},
	{lazyregexp.New(`the key is not claimed before the work begins`), "", "the event id is not claimed before the work begins"},
	{lazyregexp.New(`the retry did not find the key: the key and its reply are not written in the transaction that writes the effect`), "",
		"the redelivery did not find the event id: the event id is not recorded as processed in the transaction that writes the effect"},
	{lazyregexp.New(`the key store forgot the key even after a single other key: it keeps keys for less than ([^,(]+), or none at all`),
		"the consumer did not recognise the event id even after a single other event: it keeps the ids of the events it processed for less than $1, or none at all", ""},
	{lazyregexp.New(`the key store forgot the key`), "the consumer forgot the event id", "the handler forgot the event id"},
	{lazyregexp.New(`\. Keep every key for as long as clients may retry \(a day is usual\), in a store that neither evicts nor expires it sooner`),
		". Keep every processed event id for as long as the broker or a producer may deliver the event again (a day is usual), in a store that neither evicts nor expires it sooner", ""},
	{lazyregexp.New(`after 1 other key\b`), "after 1 other event", "after 1 other event"},
	{lazyregexp.New(`after (\d+) other keys\b`), "after $1 other events", "after $1 other events"},
}

// eventFindings words fs as eventWording says, for a queue consumer or a
// webhook handler.
func eventFindings(rec *record.Record, fs []record.Finding) []record.Finding {
	caps := rec.Target.Caps()
	if !caps.Redelivery && !caps.EventKeys {
		return fs
	}
	for i := range fs {
		for _, w := range eventWording {
			with := w.webhook
			if caps.Redelivery {
				with = w.consumer
			}
			if with != "" {
				fs[i].Message = w.re.ReplaceAllString(fs[i].Message, with)
			}
		}
	}
	return fs
}
