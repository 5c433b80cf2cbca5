//go:build race

package main

// raceOn says the race detector is on: it multiplies memory use several
// times, so memory bounds are not asserted.
const raceOn = true
