package keys

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	mrand "math/rand/v2"
	"strconv"
	"strings"
)

// The named formats.
const (
	// Token is idk- and 16 hex digits: idk-5dc8359d885e3c75.
	Token = "token"
	// UUID is a version 4 UUID: 0b1d7c4e-9f3a-4c55-8e2d-6a7b8c9d0e1f.
	UUID = "uuid"
)

// minRandomBits is what a format must carry at least: 64 random bits keep
// keys unique across the runs that share a store.
const minRandomBits = 64

// maxHex bounds {{hex N}}.
const maxHex = 64

// Format is the shape of the keys a run sends. The zero value is Token.
type Format struct {
	text  string
	parts []part
}

// part is literal text, or hex digits (hex > 0), or a UUID.
type part struct {
	lit  string
	hex  int
	uuid bool
}

// Parse reads a format: "" or "token", "uuid", or a template of literal
// text with {{hex N}} (N random hex digits, 1–64) and {{uuid}}, with at
// least 64 random bits in all, e.g. "order-{{hex 16}}". Literal text is
// printable ASCII without spaces, so the key fits in a header.
func Parse(s string) (Format, error) {
	switch s {
	case "", Token:
		return Format{text: Token, parts: []part{{lit: "idk-"}, {hex: 16}}}, nil
	case UUID:
		return Format{text: UUID, parts: []part{{uuid: true}}}, nil
	}
	f := Format{text: s}
	bits := 0
	for rest := s; rest != ""; {
		i := strings.Index(rest, "{{")
		if i < 0 {
			i = len(rest)
		}
		if lit := rest[:i]; lit != "" {
			for _, r := range lit {
				if r <= ' ' || r > '~' || r == '{' || r == '}' {
					return Format{}, fmt.Errorf("key format %q: %q cannot be part of a key (printable ASCII, no spaces or braces)", s, r)
				}
			}
			f.parts = append(f.parts, part{lit: lit})
		}
		rest = rest[i:]
		if rest == "" {
			break
		}
		j := strings.Index(rest, "}}")
		if j < 0 {
			return Format{}, fmt.Errorf("key format %q: {{ without }}", s)
		}
		p, err := parsePlaceholder(strings.TrimSpace(rest[2:j]))
		if err != nil {
			return Format{}, fmt.Errorf("key format %q: %w", s, err)
		}
		bits += 4 * p.hex
		if p.uuid {
			bits += 122
		}
		f.parts = append(f.parts, p)
		rest = rest[j+2:]
	}
	if bits < minRandomBits {
		return Format{}, fmt.Errorf("key format %q: %d random bits; a key needs at least %d to be unique across runs: use {{hex 16}} or more, or {{uuid}}", s, bits, minRandomBits)
	}
	return f, nil
}

func parsePlaceholder(p string) (part, error) {
	fields := strings.Fields(p)
	switch {
	case len(fields) == 1 && fields[0] == "uuid":
		return part{uuid: true}, nil
	case len(fields) == 2 && fields[0] == "hex":
		n, err := strconv.Atoi(fields[1])
		if err != nil || n < 1 || n > maxHex {
			return part{}, fmt.Errorf("{{%s}}: expected {{hex N}} with 1 ≤ N ≤ %d", p, maxHex)
		}
		return part{hex: n}, nil
	}
	return part{}, fmt.Errorf("unknown placeholder {{%s}}: expected {{hex N}} or {{uuid}}", p)
}

// MustParse is Parse for formats known to be valid; it panics otherwise.
func MustParse(s string) Format {
	f, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return f
}

// String returns the format as written ("token" for the zero value).
func (f Format) String() string {
	if f.text == "" {
		return Token
	}
	return f.text
}

// Make returns the key for draw (a number from the run's seeded stream)
// and nonce (the run's). The same draw and nonce always make the same key.
func (f Format) Make(draw, nonce uint64) string {
	if f.parts == nil {
		f = MustParse(Token)
	}
	src := mrand.New(mrand.NewPCG(draw, nonce))
	var b strings.Builder
	for _, p := range f.parts {
		switch {
		case p.uuid:
			b.WriteString(uuid4(src))
		case p.hex > 0:
			for n := p.hex; n > 0; n -= 16 {
				h := fmt.Sprintf("%016x", src.Uint64())
				b.WriteString(h[:min(n, 16)])
			}
		default:
			b.WriteString(p.lit)
		}
	}
	return b.String()
}

// uuid4 formats 122 random bits as a version 4, variant 1 UUID.
func uuid4(src *mrand.Rand) string {
	var u [16]byte
	binary.BigEndian.PutUint64(u[:8], src.Uint64())
	binary.BigEndian.PutUint64(u[8:], src.Uint64())
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}

// Marker returns the intent marker for draw and nonce, in the format the
// fakes look for (idem- and 16 hex digits).
func Marker(draw, nonce uint64) string {
	return fmt.Sprintf("idem-%016x", mrand.New(mrand.NewPCG(draw, nonce^0x6d61726b6572)).Uint64())
}

// NewNonce returns a fresh nonce from the operating system's random
// source: 53 bits, so that it survives JSON readers that hold numbers as
// doubles, and never 0 (0 means "draw one").
func NewNonce() uint64 {
	var b [8]byte
	for {
		_, _ = rand.Read(b[:])
		if n := binary.LittleEndian.Uint64(b[:]) & (1<<53 - 1); n != 0 {
			return n
		}
	}
}
