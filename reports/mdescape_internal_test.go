package reports

import (
	"bytes"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

// gfmHTML renders md as GitHub does (GFM), for the escaping tests.
func gfmHTML(t testing.TB, md string) string {
	var b bytes.Buffer
	if err := goldmark.New(goldmark.WithExtensions(extension.GFM)).Convert([]byte(md), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// htmlEscaped is s as goldmark writes text into HTML.
func htmlEscaped(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}

// flat is s on one line, as mdText writes it.
func flat(s string) string {
	return strings.NewReplacer("\n", " ", "\r", " ", "\t", " ").Replace(s)
}

// FuzzMdText: whatever a target prints, mdText's escape renders as exactly
// that text, on one line, in a paragraph and in a table cell, and mdLine's
// as that text without its leading blanks at the start of a paragraph:
// nothing becomes a link, an image, HTML, emphasis, code, a heading or a
// list, and nothing is lost.
func FuzzMdText(f *testing.F) {
	for _, s := range []string{
		"![pixel](https://evil.example/p.png)", "[a](b) <b>x</b> <https://e.example>",
		"https://e.example www.e.example a@e.example", "&#91;&amp;", `\[x](y) \\`,
		"# h", "- i", "1. i", "12) i", "> q", "    code", "===", "---", "| a | b |",
		"`c` ``` ~~s~~ **b** _e_ a_b_c __x__", "[^1] [x]: http://e.example",
		"snake_case_name and _lead", "wWw.e.example", "mailto:a@b.example",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		s = Clean(s) // what reaches the renderers: no control characters
		want := flat(s)

		if got := gfmHTML(t, "A "+mdText(s)+" Z\n"); got != "<p>A "+htmlEscaped(want)+" Z</p>\n" {
			t.Fatalf("in a paragraph, %q renders as\n%s", s, got)
		}

		cell := strings.Trim(want, " ")
		got := gfmHTML(t, "| h | z |\n| --- | --- |\n| "+mdText(s)+" | z |\n")
		if !strings.Contains(got, "<td>"+htmlEscaped(cell)+"</td>\n<td>z</td>") || strings.Count(got, "<td") != 2 {
			t.Fatalf("in a table cell, %q renders as\n%s", s, got)
		}

		line := strings.TrimRight(strings.TrimLeft(want, " "), " ")
		got = gfmHTML(t, mdLine(s)+"\n")
		if line == "" {
			if got != "" {
				t.Fatalf("a blank line renders as %q", got)
			}
			return
		}
		if got != "<p>"+htmlEscaped(line)+"</p>\n" {
			t.Fatalf("at a line's start, %q renders as\n%s", s, got)
		}
	})
}

// TestMdCode: a code span holds any text, backticks included, as is.
func TestMdCode(t *testing.T) {
	for _, s := range []string{"plain", "a`b", "``x``", "`", "x`", "a|b"} {
		want := "<code>" + htmlEscaped(s) + "</code>"
		if got := gfmHTML(t, "A "+mdCode(s)+" Z\n"); !strings.Contains(got, want) {
			t.Errorf("%q renders as %s", s, got)
		}
	}
	got := gfmHTML(t, "| h |\n| --- |\n| "+mdCell(mdCode("a|b"))+" |\n")
	if !strings.Contains(got, "<td><code>a|b</code></td>") {
		t.Errorf("a pipe in a code span in a cell: %s", got)
	}
}
