package lazyregexp

import (
	"errors"
	"regexp"
	"sync"
)

// Regexp is a regular expression compiled on first use. Its methods are
// those of regexp.Regexp that idemcheck's packages use.
type Regexp struct {
	expr string
	once sync.Once
	rx   *regexp.Regexp
}

var (
	mu  sync.Mutex
	all []*Regexp // every expression New made, for Check
)

// New returns expr, to be compiled (with regexp.MustCompile) when it is
// first used. It is meant for package-level variables.
func New(expr string) *Regexp {
	r := &Regexp{expr: expr}
	mu.Lock()
	all = append(all, r)
	mu.Unlock()
	return r
}

// Check compiles every expression New has made in this program and
// returns the errors of those that do not compile.
func Check() error {
	mu.Lock()
	made := append([]*Regexp(nil), all...)
	mu.Unlock()
	var errs []error
	for _, r := range made {
		if _, err := regexp.Compile(r.expr); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// re returns the compiled expression, compiling it on the first call.
func (r *Regexp) re() *regexp.Regexp {
	r.once.Do(func() { r.rx = regexp.MustCompile(r.expr) })
	return r.rx
}

// String returns the source text of the expression, without compiling it.
func (r *Regexp) String() string { return r.expr }

// MatchString is regexp.Regexp.MatchString.
func (r *Regexp) MatchString(s string) bool { return r.re().MatchString(s) }

// FindStringSubmatch is regexp.Regexp.FindStringSubmatch.
func (r *Regexp) FindStringSubmatch(s string) []string { return r.re().FindStringSubmatch(s) }

// FindStringSubmatchIndex is regexp.Regexp.FindStringSubmatchIndex.
func (r *Regexp) FindStringSubmatchIndex(s string) []int { return r.re().FindStringSubmatchIndex(s) }

// FindAllStringSubmatch is regexp.Regexp.FindAllStringSubmatch.
func (r *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return r.re().FindAllStringSubmatch(s, n)
}

// ReplaceAllString is regexp.Regexp.ReplaceAllString.
func (r *Regexp) ReplaceAllString(src, repl string) string { return r.re().ReplaceAllString(src, repl) }

// ReplaceAllStringFunc is regexp.Regexp.ReplaceAllStringFunc.
func (r *Regexp) ReplaceAllStringFunc(src string, repl func(string) string) string {
	return r.re().ReplaceAllStringFunc(src, repl)
}

// Match is regexp.Regexp.Match.
func (r *Regexp) Match(b []byte) bool { return r.re().Match(b) }

// FindAll is regexp.Regexp.FindAll.
func (r *Regexp) FindAll(b []byte, n int) [][]byte { return r.re().FindAll(b, n) }

// FindSubmatch is regexp.Regexp.FindSubmatch.
func (r *Regexp) FindSubmatch(b []byte) [][]byte { return r.re().FindSubmatch(b) }
