package reports_test

import (
	"encoding/xml"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/reports"
)

// node is an XML element, as far as the JUnit shape needs.
type node struct {
	name     string
	attrs    map[string]string
	children []*node
	text     string
}

func parseXML(t *testing.T, doc string) *node {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(doc))
	var stack []*node
	var root *node
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err, "well-formed XML")
		switch x := tok.(type) {
		case xml.StartElement:
			n := &node{name: x.Name.Local, attrs: map[string]string{}}
			for _, a := range x.Attr {
				n.attrs[a.Name.Local] = a.Value
			}
			if len(stack) > 0 {
				stack[len(stack)-1].children = append(stack[len(stack)-1].children, n)
			} else {
				root = n
			}
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].text += string(x)
			}
		}
	}
	require.NotNil(t, root)
	return root
}

// junitShape is the common JUnit XSD (the one Jenkins publishes and
// GitLab, GitHub test reporters and others read): for each element, its
// attributes (required ones marked with !), and its children in their
// required order (a child may repeat).
var junitShape = map[string]struct {
	attrs    []string
	children []string
}{
	"testsuites": {[]string{"name", "tests", "failures", "errors", "skipped", "disabled", "time", "timestamp"}, []string{"testsuite"}},
	"testsuite":  {[]string{"name!", "tests!", "failures!", "errors!", "skipped!", "time!", "disabled", "timestamp", "hostname", "id", "package"}, []string{"properties", "testcase", "system-out", "system-err"}},
	"properties": {nil, []string{"property"}},
	"property":   {[]string{"name!", "value!"}, nil},
	"testcase":   {[]string{"name!", "classname!", "time!", "assertions", "status"}, []string{"skipped", "error", "failure", "system-out", "system-err"}},
	"skipped":    {[]string{"message"}, nil},
	"error":      {[]string{"message", "type"}, nil},
	"failure":    {[]string{"message", "type"}, nil},
	"system-out": {nil, nil},
	"system-err": {nil, nil},
}

var (
	decimal   = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`)
	timestamp = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}$`)
)

// validateJUnit returns every way doc departs from the JUnit shape.
func validateJUnit(t *testing.T, doc string) []string {
	var errs []string
	bad := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	var walk func(path string, n *node)
	walk = func(path string, n *node) {
		shape, ok := junitShape[n.name]
		if !ok {
			bad("%s: unknown element", path)
			return
		}
		allowed := map[string]bool{}
		for _, a := range shape.attrs {
			name := strings.TrimSuffix(a, "!")
			allowed[name] = true
			if strings.HasSuffix(a, "!") {
				if _, has := n.attrs[name]; !has {
					bad("%s: attribute %s is required", path, name)
				}
			}
		}
		for a, v := range n.attrs {
			if !allowed[a] {
				bad("%s: attribute %s is not in the schema", path, a)
			}
			switch a {
			case "tests", "failures", "errors", "skipped", "disabled":
				if _, err := strconv.Atoi(v); err != nil {
					bad("%s: %s=%q is not a count", path, a, v)
				}
			case "time":
				if !decimal.MatchString(v) {
					bad("%s: time=%q is not a decimal number of seconds", path, v)
				}
			case "timestamp":
				if !timestamp.MatchString(v) {
					bad("%s: timestamp=%q is not an ISO 8601 date-time without zone", path, v)
				}
			}
		}
		if len(shape.children) == 0 && len(n.children) > 0 {
			bad("%s: has child elements", path)
		}
		pos := 0
		for _, c := range n.children {
			i := pos
			for i < len(shape.children) && shape.children[i] != c.name {
				i++
			}
			if i == len(shape.children) {
				bad("%s: <%s> is not allowed here (allowed, in order: %v)", path, c.name, shape.children)
				continue
			}
			pos = i
			walk(path+">"+c.name, c)
		}
		// The counts must say what the elements say.
		if n.name == "testsuite" || n.name == "testsuites" {
			counts := map[string]int{}
			var cases []*node
			if n.name == "testsuite" {
				for _, c := range n.children {
					if c.name == "testcase" {
						cases = append(cases, c)
					}
				}
			} else {
				for _, s := range n.children {
					for _, c := range s.children {
						if c.name == "testcase" {
							cases = append(cases, c)
						}
					}
				}
			}
			counts["tests"] = len(cases)
			for _, c := range cases {
				for _, k := range c.children {
					switch k.name {
					case "failure":
						counts["failures"]++
					case "error":
						counts["errors"]++
					case "skipped":
						counts["skipped"]++
					}
				}
			}
			for k, want := range counts {
				if got, _ := strconv.Atoi(n.attrs[k]); got != want {
					bad("%s %q: %s=%d but it holds %d", path, n.attrs["name"], k, got, want)
				}
			}
		}
	}
	root := parseXML(t, doc)
	if root.name != "testsuites" {
		bad("the root is <%s>, not <testsuites>", root.name)
	}
	walk(root.name, root)
	return errs
}

func TestJUnitHasTheShapeCIReads(t *testing.T) {
	doc := render(t, "junit", fixture(t), reports.Options{})
	assert.Empty(t, validateJUnit(t, doc))
	root := parseXML(t, doc)
	require.Len(t, root.children, 4, "a testsuite per target")
	suites := map[string]*node{}
	for _, s := range root.children {
		suites[s.attrs["name"]] = s
	}
	props := func(s *node) map[string]string {
		out := map[string]string{}
		for _, c := range s.children {
			if c.name == "properties" {
				for _, p := range c.children {
					out[p.attrs["name"]] = p.attrs["value"]
				}
			}
		}
		return out
	}
	mf := suites["mark-first"]
	assert.Equal(t, "3", props(mf)["seed"])
	assert.Equal(t, "0", props(mf)["score"])
	var failure, skipped *node
	for _, c := range mf.children {
		if c.name != "testcase" {
			continue
		}
		assert.Equal(t, "idemcheck.mark-first", c.attrs["classname"])
		for _, k := range c.children {
			switch {
			case c.attrs["name"] == "exactly-once" && k.name == "failure":
				failure = k
			case c.attrs["name"] == "downstream.propagation" && k.name == "skipped":
				skipped = k
			}
		}
	}
	require.NotNil(t, failure, "exactly-once fails on mark-first")
	assert.Equal(t, "critical", failure.attrs["type"])
	assert.Contains(t, failure.attrs["message"], "2 findings; the first: create-order: acknowledged (200")
	assert.Contains(t, failure.text, "replay: idemcheck run -c idemcheck.yaml --seed 3 --only exactly-once")
	assert.Contains(t, failure.text, "attempt 1 · +0 · fault downstream-503 · 502 (info)")
	require.NotNil(t, skipped)
	assert.Equal(t, "no fault of its class was tried", skipped.attrs["message"])
	down := suites["down"]
	assert.Equal(t, "1", down.attrs["errors"])
	assert.Equal(t, "-1", props(down)["score"])
}

// TestJUnitValidatorCatchesBadShapes proves the validator above: each row
// breaks the shape one way.
func TestJUnitValidatorCatchesBadShapes(t *testing.T) {
	cases := []struct{ why, doc, want string }{
		{"a testcase without classname", `<testsuites><testsuite name="a" tests="1" failures="0" errors="0" skipped="0" time="0"><testcase name="x" time="0"/></testsuite></testsuites>`, "attribute classname is required"},
		{"counts that lie", `<testsuites><testsuite name="a" tests="2" failures="0" errors="0" skipped="0" time="0"><testcase name="x" classname="c" time="0"/></testsuite></testsuites>`, "tests=2 but it holds 1"},
		{"properties after the testcases", `<testsuites><testsuite name="a" tests="1" failures="0" errors="0" skipped="0" time="0"><testcase name="x" classname="c" time="0"/><properties/></testsuite></testsuites>`, "<properties> is not allowed here"},
		{"a time that is not a number", `<testsuites><testsuite name="a" tests="0" failures="0" errors="0" skipped="0" time="1s"></testsuite></testsuites>`, `time="1s"`},
	}
	for _, tc := range cases {
		t.Run(tc.why, func(t *testing.T) {
			assert.Contains(t, strings.Join(validateJUnit(t, tc.doc), "\n"), tc.want)
		})
	}
}
