// Package refexe gives idemcheck's tests the program that runs the
// reference targets as real processes: examples/reference/cmd/reference,
// built once per test binary with the go command, without the race
// detector (Path); and, for the benchmarks that start a target as the
// demo does, the program that carries that target alone,
// examples/reference/cmd/NAME (Alone).
//
// The test binaries could run the reference targets themselves (their
// TestMain hands a run with the hidden subcommand to the target), but a
// start of a test binary built with -race costs several times what a
// start of the small program does, and every call of a reference
// command-line tool, every MCP session over stdio and every restart of a
// reference server is a start. The targets are what is judged, not what
// is tested: the harness that judges them stays under the race detector.
package refexe
