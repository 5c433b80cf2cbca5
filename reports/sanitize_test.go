package reports_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/idemcheck/idemcheck/reports"
)

func TestClean(t *testing.T) {
	rows := []struct{ why, in, want string }{
		{"plain text is kept", "order ord_1 created\n\tdone", "order ord_1 created\n\tdone"},
		{"colour codes show as text", "\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`},
		{"NUL, bell, CR and DEL are escaped", "a\x00b\x07c\rd\x7f", `a\x00b\x07c\x0dd\x7f`},
		{"invalid UTF-8 is repaired", "bad \xff\xfe end", "bad \ufffd\ufffd end"},
		{"C1 controls are escaped", "x\u0085y", `x\x85y`},
		{"non-characters XML forbids are escaped", "x\uffffy", `x\uffffy`},
		{"other scripts are kept", "café ✓ 注文", "café ✓ 注文"},
		{"a real U+FFFD is kept", "\ufffd", "\ufffd"},
	}
	for _, r := range rows {
		t.Run(r.why, func(t *testing.T) {
			assert.Equal(t, r.want, reports.Clean(r.in))
		})
	}
}

func FuzzClean(f *testing.F) {
	f.Add("\x1b[31mred\x00\xff")
	f.Fuzz(func(t *testing.T, s string) {
		c := reports.Clean(s)
		if reports.Clean(c) != c {
			t.Fatalf("Clean is not idempotent on %q: %q", s, c)
		}
		for _, r := range c {
			if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f {
				t.Fatalf("Clean(%q) = %q holds control %U", s, c, r)
			}
		}
	})
}
