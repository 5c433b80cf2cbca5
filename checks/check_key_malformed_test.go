package checks_test

import (
	"strings"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/record"
)

// malformedRecord is a served plain intent, then a malformed key
// answered with a.
func malformedRecord(a record.Attempt) *record.Record {
	b := newRec()
	i := b.intent(plain, opCharge)
	b.try(i, ok(201, "created", "ord_1"), mine())
	m := b.intent(record.RoleMalformedKey, opCharge)
	b.rec.Intent(m).Key = "idk-00000000000000a2-" + strings.Repeat("x", checks.MalformedKeyLength-21)
	b.try(m, a)
	return b.done()
}

func keyMalformedCases() []checkCase {
	return []checkCase{
		{
			why:  "a malformed key answered 500 (a column too narrow for it), while well-formed keys were served",
			rec:  malformedRecord(unknown(500)),
			fail: map[string][]record.Severity{checks.CheckKeyMalformed: {major}},
			msgs: map[string][]string{checks.CheckKeyMalformed: {"charge: a malformed idempotency key (300 characters) was answered HTTP 500, while well-formed keys were served: a malformed key is the client's error"}},
		},
		{
			why:  "a malformed key refused with 400",
			rec:  malformedRecord(failed(400)),
			pass: []string{checks.CheckKeyMalformed},
		},
		{
			why:  "a malformed key accepted: the target takes long keys, nothing to say",
			rec:  malformedRecord(ok(201, "created", "ord_2")),
			pass: []string{checks.CheckKeyMalformed},
		},
		{
			why: "a queue consumer has no reply to refuse a key with: not applicable, even with a malformed key sent",
			rec: func() *record.Record {
				r := malformedRecord(unknown(500))
				r.Target.Kind = "consumer"
				r.Target.Capabilities = &record.Capabilities{Keys: true, Redelivery: true}
				return r
			}(),
			skip:  []string{checks.CheckKeyMalformed},
			notes: map[string]string{checks.CheckKeyMalformed: "not applicable to consumer targets"},
		},
		{
			why:  "no malformed key was sent",
			rec:  sequentialOK(),
			skip: []string{checks.CheckKeyMalformed},
		},
	}
}
