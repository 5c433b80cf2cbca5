// Package interrupt catches SIGINT, SIGTERM and SIGHUP from the moment a
// program's packages are being initialised, not only once main has
// started: Go's default for SIGTERM is to end the process at once, so a
// signal that arrives while a large program initialises (tens of
// milliseconds) would otherwise kill it with no sweep and no exit status
// of its own. A program that imports this package turns the signals it
// caught, before or after, into the cancellation of Context.
//
// Its init only needs os/signal, so it runs as soon as os/signal is
// ready, ahead of the heavy packages of the program.
package interrupt
