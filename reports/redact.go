package reports

import (
	"slices"
	"strings"

	"github.com/idemcheck/idemcheck/record"
)

// Redacted is what a secret is replaced with.
const Redacted = "[redacted]"

// MinFragment is the shortest piece of a secret redacted where a text
// starts or ends: evidence is cut at a fixed size (the first 2 KiB of a
// body, the last 2 KiB of stderr), which can cut a secret in two, and
// each half must go. Shorter pieces are too likely to be chance.
const MinFragment = 4

// MinCutText is the shortest text whose end may be a cut without an
// ellipsis to say so: evidence cut at its fixed size (a reply body's
// first 2 KiB) is that long; every shorter cut, and every cut at a
// text's start (stderr's last 2 KiB), is marked with an ellipsis. A
// short text that merely ends or starts like a secret begins (a target
// named orders-no-unique beside a variable holding unique-cosmos-…) is
// left whole.
const MinCutText = 1 << 10

// RedactText replaces, in s, every occurrence of one of secrets (values
// the configuration marks secret, and those of idemcheck's environment:
// see EnvSecrets; empty ones are ignored), a piece of one of them at least
// MinFragment long where s starts or ends (a secret cut by an evidence
// limit), and every credential of a known shape (see SECRETS.md) with
// Redacted.
func RedactText(s string, secrets []string) string {
	return newRedactor(secrets).text(s)
}

// Redact returns a copy of res cleaned (see Clean) and with every secret
// redacted (see RedactText) from every string it holds: target output,
// replies, errors and messages alike. Write result.json and the reports
// from it.
func Redact(res *record.Result, secrets []string) *record.Result {
	r := newRedactor(secrets)
	return clean.add(transformed(res, func(s string) string { return r.text(Clean(s)) }))
}

// redactor holds the secrets to redact, longest first, so that a secret
// that holds another is replaced whole.
type redactor struct{ secrets []string }

func newRedactor(secrets []string) redactor {
	var out []string
	for _, s := range secrets {
		if s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	slices.SortStableFunc(out, func(a, b string) int { return len(b) - len(a) })
	return redactor{out}
}

func (r redactor) text(s string) string {
	for _, sec := range r.secrets {
		if strings.Contains(s, sec) {
			s = strings.ReplaceAll(s, sec, Redacted)
		}
	}
	for _, sec := range r.secrets {
		s = redactEdges(s, sec)
	}
	return redactShapes(s)
}

// ellipsis marks where evidence was cut (the start of stderr's tail).
const ellipsis = "…"

// redactEdges redacts the longest piece of sec, at least MinFragment long
// and shorter than sec, that ends s (a prefix of sec: the text was cut
// after it) or starts s (a suffix of sec: the text was cut before it), an
// ellipsis that marks the cut aside. Only a text that may have been cut
// there is looked at: its end when it ends with an ellipsis or is at
// least MinCutText long, its start when it starts with an ellipsis.
func redactEdges(s, sec string) string {
	if len(sec) <= MinFragment || len(s) < MinFragment {
		return s
	}
	body, tail := s, ""
	if strings.HasSuffix(body, ellipsis) {
		body, tail = strings.TrimSuffix(body, ellipsis), ellipsis
	}
	cutEnd := tail != "" || len(s) >= MinCutText
	// The last byte of body must end the piece: only those lengths are
	// tried.
	if n := len(body); cutEnd && n >= MinFragment {
		last := body[n-1]
		for k := min(len(sec)-1, n); k >= MinFragment; k-- {
			if sec[k-1] == last && body[n-k:] == sec[:k] {
				body = body[:n-k] + Redacted
				break
			}
		}
	}
	head := ""
	if strings.HasPrefix(body, ellipsis) {
		head, body = ellipsis, strings.TrimPrefix(body, ellipsis)
	}
	if n := len(body); head != "" && n >= MinFragment && !strings.HasPrefix(body, Redacted) {
		first := body[0]
		for k := min(len(sec)-1, n); k >= MinFragment; k-- {
			if sec[len(sec)-k] == first && body[:k] == sec[len(sec)-k:] {
				body = Redacted + body[k:]
				break
			}
		}
	}
	return head + body + tail
}
