package lazyregexp

import (
	"strings"
	"testing"
)

// made replaces the expressions New has made with none for the test.
func made(t *testing.T) {
	t.Helper()
	mu.Lock()
	saved := all
	all = nil
	mu.Unlock()
	t.Cleanup(func() {
		mu.Lock()
		all = saved
		mu.Unlock()
	})
}

func TestMatchesAsRegexp(t *testing.T) {
	made(t)
	r := New(`^([a-z]+)-(\d+)$`)
	if r.String() != `^([a-z]+)-(\d+)$` {
		t.Errorf("String() = %q", r.String())
	}
	if !r.MatchString("order-12") || r.MatchString("order-x") {
		t.Error("MatchString does not match as the expression does")
	}
	if got := r.FindStringSubmatch("order-12"); len(got) != 3 || got[1] != "order" || got[2] != "12" {
		t.Errorf("FindStringSubmatch = %q", got)
	}
	if got := New(`\d`).ReplaceAllString("a1b2", "#"); got != "a#b#" {
		t.Errorf("ReplaceAllString = %q", got)
	}
	if err := Check(); err != nil {
		t.Errorf("Check() = %v, want nil: every expression compiles", err)
	}
}

func TestCheckReportsAnExpressionThatDoesNotCompile(t *testing.T) {
	made(t)
	New(`fine`)
	bad := New(`(unclosed`)
	err := Check()
	if err == nil || !strings.Contains(err.Error(), "(unclosed") {
		t.Fatalf("Check() = %v, want the error of `(unclosed`", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("the first use of an expression that does not compile did not panic")
		}
	}()
	bad.MatchString("x")
}

// TestFirstUsesAtOnce uses one expression from many goroutines at once,
// for the race detector: the first use compiles it exactly once.
func TestFirstUsesAtOnce(t *testing.T) {
	made(t)
	r := New(`^x+$`)
	done := make(chan bool)
	for range 8 {
		go func() { done <- r.MatchString("xxx") }()
	}
	for range 8 {
		if !<-done {
			t.Error("MatchString(\"xxx\") = false")
		}
	}
}
