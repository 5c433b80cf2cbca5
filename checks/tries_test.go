package checks_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/record"
)

// TestRacyProbeFindingsSayInHowManyTries: the client-disconnect probe is
// tried three times (the client may leave before or after the target
// notices); the duplicates two of the tries caused are one finding that
// says "in 2 of 3 tries", with both as evidence. A probe tried once keeps
// its finding as it was.
func TestRacyProbeFindingsSayInHowManyTries(t *testing.T) {
	b := newRec()
	names := []string{"retry after client-disconnect", "retry after client-disconnect (try 2 of 3)", "retry after client-disconnect (try 3 of 3)"}
	for k, name := range names {
		i := b.intent(plain, opCharge)
		b.rec.Intents[i-1].Probe = name
		if k == 1 {
			b.try(i, under(faults.NameClientDisconnect, unknown(0)), mine()).try(i, ok(200, "noop", "ord_1"))
			continue
		}
		b.try(i, under(faults.NameClientDisconnect, unknown(0)), mine()).try(i, ok(201, "created", "ord_2"), mine())
	}
	lost := b.intent(plain, opCharge)
	b.rec.Intents[lost-1].Probe = "retry after lost-response"
	b.try(lost, under(faults.NameLostResponse, unknown(503)), mine()).try(lost, ok(201, "created", "ord_3"), mine())

	_, fs := checks.Evaluate(b.done())
	var disconnect, lostResp []record.Finding
	for _, f := range fs {
		if f.Check != checks.CheckRetryAfterFault {
			continue
		}
		switch f.Fault {
		case faults.NameClientDisconnect:
			disconnect = append(disconnect, f)
		case faults.NameLostResponse:
			lostResp = append(lostResp, f)
		}
	}
	require.Len(t, disconnect, 1, "the tries' duplicates are one finding")
	assert.Contains(t, disconnect[0].Message, "(in 2 of 3 tries)")
	assert.Len(t, disconnect[0].Evidence.Intents, 2)
	require.Len(t, lostResp, 1)
	assert.NotContains(t, lostResp[0].Message, "tries)")
}

// TestATryOfSeveralIntentsIsOneTry: the distinct-intents probe sends 4
// intents at once in each of its 3 tries; intents lost in every try make
// one finding that says "in 3 of 3 tries", not a count of its intents.
func TestATryOfSeveralIntentsIsOneTry(t *testing.T) {
	b := newRec()
	names := []string{"4 distinct intents at once", "4 distinct intents at once (try 2 of 3)", "4 distinct intents at once (try 3 of 3)"}
	for _, name := range names {
		for k := 0; k < 4; k++ {
			i := b.intent(record.RoleDistinct, opCharge)
			b.rec.Intents[i-1].Probe = name
			if k == 0 {
				b.try(i, ok(201, "created", "ord"))
			} else {
				b.try(i, ok(201, "created", "ord"), mine())
			}
		}
	}
	_, fs := checks.Evaluate(b.done())
	var distinct []record.Finding
	for _, f := range fs {
		if f.Check == checks.CheckConcurrentDistinct {
			distinct = append(distinct, f)
		}
	}
	require.Len(t, distinct, 1)
	assert.Contains(t, distinct[0].Message, "(in 3 of 3 tries)")
}
