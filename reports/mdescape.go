package reports

import (
	"strings"
	"unicode/utf8"
)

// mdText makes s plain text inside a line of Markdown (a paragraph after
// other text, a table cell, a heading), as GitHub renders Markdown
// (CommonMark and its GFM extensions): one line, and nothing in it that
// makes anything once rendered. Escaped with a backslash: the brackets of
// links and images, code's backtick, the table pipe, the backslash itself,
// emphasis (* ~, and _ unless inside a word, where it cannot emphasise),
// the colon of a URL autolink (before "//"), the @ of an e-mail autolink
// and the dot of "www."; < > & are written as entities, so no raw HTML,
// angle-bracket autolink or entity survives. What a target printed reads
// the same once rendered, and makes no link, image or HTML of its own.
func mdText(s string) string {
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			b.WriteByte(' ')
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '&':
			b.WriteString("&amp;")
		case strings.ContainsRune(mdInline, r),
			r == '_' && !(i > 0 && isAlnum(s[i-1]) && i+1 < len(s) && isAlnum(s[i+1])),
			r == ':' && strings.HasPrefix(s[i+1:], "//"),
			r == '.' && hasSuffixFold(s[:i], "www"):
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// mdLine is mdText for text that starts a line (a paragraph, a list
// item's content): also defused is a construct that only the start of a
// line makes, a heading (#), a list item (- + 1. 1)), a setext underline or
// thematic break (= -), or indented code (leading blanks, dropped). A
// quote's > is an entity already.
func mdLine(s string) string {
	s = strings.TrimLeft(s, " \t\r\n")
	switch n := orderedMarker(s); {
	case s == "":
		return ""
	case strings.ContainsRune("#-+=", rune(s[0])):
		return "\\" + s[:1] + mdText(s[1:])
	case n > 0: // a backslash before a digit is no escape: after the digits
		return s[:n] + "\\" + s[n:n+1] + mdText(s[n+1:])
	}
	return mdText(s)
}

// mdInline are the ASCII characters mdText escapes wherever they are.
const mdInline = "\\`*~[]|@"

// isAlnum reports whether c is an ASCII letter or digit.
func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// orderedMarker returns the number of digits of the ordered list marker
// s starts with (up to nine digits, then "." or ")"), 0 if none.
func orderedMarker(s string) int {
	n := 0
	for n < len(s) && n < 10 && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	if n > 0 && n < 10 && n < len(s) && (s[n] == '.' || s[n] == ')') {
		return n
	}
	return 0
}

func hasSuffixFold(s, suffix string) bool {
	return len(s) >= len(suffix) && strings.EqualFold(s[len(s)-len(suffix):], suffix)
}

// mdCode returns s as a Markdown code span, whatever it holds: delimited
// by one backtick more than its longest run of backticks, padded with a
// space where it starts or ends with one, on one line.
func mdCode(s string) string {
	s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// mdFence returns the fence of a code block that holds s: three
// backticks, or one more than the longest run in s.
func mdFence(s string) string {
	return strings.Repeat("`", max(3, longestRun(s, '`')+1))
}

func longestRun(s string, c byte) int {
	longest, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			longest = max(longest, n)
		} else {
			n = 0
		}
	}
	return longest
}

// mdCell makes Markdown that is not mdText's (a code span) safe in a table
// cell: a pipe, even inside a code span, would end the cell unless escaped.
func mdCell(md string) string {
	return strings.ReplaceAll(md, "|", `\|`)
}
