package email

import "testing"

func FuzzParseSend(f *testing.F) {
	f.Add(`{"personalizations":[{"to":[{"email":"a@x"}]}],"from":{"email":"b@x"},"subject":"s","content":[{"type":"text/plain","value":"v"}]}`)
	f.Add(`{"personalizations":[{"to":[{"email":"a@x"}],"subject":"p"}],"from":{"email":"b@x"},"content":[{"type":"t","value":"v"}]}`)
	f.Add(`{}`)
	f.Add(`[]`)
	f.Fuzz(func(t *testing.T, body string) {
		m, canon, rp := parseSend("application/json", []byte(body))
		if rp != nil {
			if rp.Status != 400 {
				t.Fatalf("a bad body got %d, want 400", rp.Status)
			}
			return
		}
		if len(m.To) == 0 || m.From == "" || m.Subject == "" || m.Text == "" || canon == "" {
			t.Fatalf("accepted an incomplete message %+v from %q", m, body)
		}
		// The fingerprint does not depend on key order or spacing.
		if _, canon2, _ := parseSend("application/json", []byte(canon)); canon2 != canon {
			t.Fatalf("canonical form is not stable: %q then %q", canon, canon2)
		}
	})
}
