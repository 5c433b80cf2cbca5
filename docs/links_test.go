package docs_test

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLinksResolve: every relative link in README.md and in docs/ leads
// to a file that exists and, for a link into a Markdown file, to a
// heading it has.
func TestLinksResolve(t *testing.T) {
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	pages := []string{filepath.Join(root, "README.md")}
	require.NoError(t, filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			abs, _ := filepath.Abs(path)
			pages = append(pages, abs)
		}
		return err
	}))
	checked := 0
	for _, page := range pages {
		rel, _ := filepath.Rel(root, page)
		for _, l := range links(t, page) {
			if l.target == "" || strings.Contains(l.target, "://") || strings.HasPrefix(l.target, "mailto:") {
				continue
			}
			checked++
			path, frag, _ := strings.Cut(l.target, "#")
			file := page
			if path != "" {
				file = filepath.Join(filepath.Dir(page), filepath.FromSlash(path))
			}
			where := fmt.Sprintf("%s:%d: [%s](%s)", rel, l.line, l.text, l.target)
			inRepo, _ := filepath.Rel(root, file)
			if _, err := os.Stat(file); err != nil {
				t.Errorf("%s: no such file (%s)", where, inRepo)
				continue
			}
			if frag != "" && strings.HasSuffix(file, ".md") {
				if !anchors(t, file)[frag] {
					t.Errorf("%s: %s has no heading whose anchor is #%s", where, inRepo, frag)
				}
			}
		}
	}
	assert.Greater(t, checked, 100, "the link check found fewer links than the docs have: is it reading them?")
}

// link is one Markdown link in a page.
type link struct {
	text, target string
	line         int
}

var inlineLink = regexp.MustCompile(`\[([^\]]*)\]\(([^)\s]+)\)`)

// links returns the links of a Markdown page, outside code blocks.
func links(t *testing.T, page string) []link {
	t.Helper()
	f, err := os.Open(page)
	require.NoError(t, err)
	defer f.Close()
	var out []link
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	fence, n := false, 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fence = !fence
			continue
		}
		if fence {
			continue
		}
		for _, m := range inlineLink.FindAllStringSubmatch(line, -1) {
			out = append(out, link{text: m[1], target: m[2], line: n})
		}
	}
	require.NoError(t, sc.Err())
	return out
}

// anchors returns the anchors of a Markdown page's headings.
func anchors(t *testing.T, page string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(page)
	require.NoError(t, err)
	out := map[string]bool{}
	fence := false
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fence = !fence
			continue
		}
		if fence || !strings.HasPrefix(line, "#") {
			continue
		}
		text := strings.TrimSpace(strings.TrimLeft(line, "#"))
		a := anchor(text)
		for i := 1; out[a]; i++ { // GitHub numbers repeated headings
			a = fmt.Sprintf("%s-%d", anchor(text), i)
		}
		out[a] = true
	}
	return out
}

// TestCodeFencesClosed: every Markdown page of the repository closes each
// code block it opens: an unclosed fence swallows the rest of the page
// into one code block. A fence closes with a bare run of its own
// character at least as long as the one that opened it.
func TestCodeFencesClosed(t *testing.T) {
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	pages := 0
	require.NoError(t, filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".md") {
			return nil
		}
		pages++
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		rel, _ := filepath.Rel(root, path)
		open, at := "", 0 // the opening fence's run of ` or ~, and its line
		sc := bufio.NewScanner(f)
		for n := 1; sc.Scan(); n++ {
			line := strings.TrimLeft(sc.Text(), " ")
			run := fenceRun(line)
			switch {
			case len(run) < 3:
			case open == "":
				open, at = run, n
			case run[0] == open[0] && len(run) >= len(open) && strings.TrimSpace(line[len(run):]) == "":
				open = ""
			}
		}
		if open != "" {
			t.Errorf("%s:%d: a code block opened here is never closed", rel, at)
		}
		return sc.Err()
	}))
	assert.Greater(t, pages, 20, "the fence check found fewer pages than the repository has")
}

// fenceRun is the run of backticks or tildes line starts with.
func fenceRun(line string) string {
	if line == "" || (line[0] != '`' && line[0] != '~') {
		return ""
	}
	n := 0
	for n < len(line) && line[n] == line[0] {
		n++
	}
	return line[:n]
}
