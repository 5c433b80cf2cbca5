// Package reftest runs the reference targets that keep their effects in
// their own data as real processes in their tests: the test binary itself,
// started again with ServeArg (TestMain hands such a run to the target's
// Main), over a real database.
package reftest
