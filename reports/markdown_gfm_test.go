package reports_test

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	extast "github.com/yuin/goldmark/extension/ast"
	gmtext "github.com/yuin/goldmark/text"

	"github.com/idemcheck/idemcheck/reports"
)

// hostileMarkdown is what a target might print to make a report's
// Markdown fetch, link or restructure something: every construct GitHub's
// renderer knows that could make a link, an image, HTML or a heading.
var hostileMarkdown = []string{
	"![pixel](https://evil.example/p.png)",
	"[click](https://evil.example/c)",
	"[ref] and [ref][] with [ref]: https://evil.example/r",
	"<img src=https://evil.example/i.png>",
	`<a href="https://evil.example/a">x</a>`,
	"<https://evil.example/angle>",
	"https://evil.example/auto and HTTP://EVIL.EXAMPLE/up",
	"www.evil.example/www and WWW.evil.example",
	"mail@evil.example and mailto:mail@evil.example",
	"&#91;e&#93;&#40;https://evil.example/entity&#41;",
	`\[x](https://evil.example/slash)`,
	"# heading",
	"- item",
	"1. item",
	"> quote",
	"    indented code",
	"===",
	"| a | b |",
	"`code` and ``` fences",
	"[^note] footnote",
	"**bold** _em_ ~strike~",
}

// TestMarkdownMakesOnlyItsOwnLinks puts what a target controls (its
// errors, its output quoted in messages, notes and reasons, an MCP tool's
// name) in every place the Markdown report writes text, renders report.md
// as GitHub does (GFM), and finds no link, image, HTML or heading that the
// report did not make itself, while every hostile text still reads as
// written.
func TestMarkdownMakesOnlyItsOwnLinks(t *testing.T) {
	for _, h := range hostileMarkdown {
		t.Run(h, func(t *testing.T) {
			res := fixture(t)
			for i := range res.Targets {
				tr := &res.Targets[i]
				tr.Score.Reason = h + " reason"
				if tr.Score.Next != nil {
					tr.Score.Next.Message = h
				}
				if tr.Error != "" {
					tr.Error = h + " error"
				}
				if tr.Gate != nil {
					tr.Gate.Reason = h
				}
				for j := range tr.Checks {
					tr.Checks[j].Note = h
				}
				for j := range tr.Findings {
					tr.Findings[j].Message = h + " message"
					tr.Findings[j].Operation = h
				}
			}
			var md bytes.Buffer
			require.NoError(t, reports.Markdown(&md, res, reports.Options{MinScore: 2}))
			src := md.Bytes()
			doc := goldmark.New(goldmark.WithExtensions(extension.GFM, extension.Footnote)).Parser().Parse(gmtext.NewReader(src))

			headings := 0
			require.NoError(t, ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
				if !entering {
					return ast.WalkContinue, nil
				}
				switch n.Kind() {
				case ast.KindLink, ast.KindImage, ast.KindAutoLink, extast.KindFootnoteLink:
					t.Errorf("a %s the report did not make: %q", n.Kind(), nodeText(n, src))
				case ast.KindRawHTML, ast.KindHTMLBlock:
					if html := strings.TrimSpace(nodeText(n, src)); !ownHTML.MatchString(html) {
						t.Errorf("HTML the report did not make: %q", html)
					}
				case ast.KindHeading:
					headings++
				case ast.KindCodeBlock:
					t.Errorf("an indented code block: %q", nodeText(n, src))
				case ast.KindBlockquote:
					t.Errorf("a quote: %q", nodeText(n, src))
				}
				return ast.WalkContinue, nil
			}))
			assert.Equal(t, 1+len(res.Targets), headings, "the report's own headings only")

			var html bytes.Buffer
			require.NoError(t, goldmark.New(goldmark.WithExtensions(extension.GFM)).Convert(src, &html))
			assert.Contains(t, html.String(), htmlText(strings.TrimSpace(h)+" message"), "the text reads as the target wrote it")
		})
	}
}

// ownHTML is the raw HTML the Markdown report writes: its collapsed list
// of checks.
var ownHTML = regexp.MustCompile(`^(<details><summary>Checks: \d+ fail, \d+ pass, \d+ skip</summary>|</details>)$`)

// nodeText is the source of a node, for messages.
func nodeText(n ast.Node, src []byte) string {
	var b strings.Builder
	switch x := n.(type) {
	case *ast.RawHTML:
		for i := 0; i < x.Segments.Len(); i++ {
			s := x.Segments.At(i)
			b.Write(s.Value(src))
		}
		return b.String()
	}
	if n.Type() == ast.TypeBlock {
		for i := 0; i < n.Lines().Len(); i++ {
			s := n.Lines().At(i)
			b.Write(s.Value(src))
		}
		return b.String()
	}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if tx, ok := c.(*ast.Text); ok {
			b.Write(tx.Segment.Value(src))
		}
	}
	return b.String()
}

// htmlText is s as goldmark writes text into HTML.
func htmlText(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}
