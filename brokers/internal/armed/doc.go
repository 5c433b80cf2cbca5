// Package armed keeps the faults armed on a broker, one per kind and event,
// until the broker uses them.
package armed
