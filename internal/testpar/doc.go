// Package testpar lets the tests of a package whose time goes to waiting
// — on a broker's redelivery deadline, on a late retry's delay — run more
// of their parallel tests at once than go test's default (one per
// processor), which is sized for tests that keep the processors busy.
// A -parallel given on the command line is kept as it is.
package testpar
