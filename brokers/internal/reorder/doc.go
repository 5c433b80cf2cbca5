// Package reorder publishes events for a broker and carries out the
// Reorder fault, the same way for every broker: an armed event is held
// back and published right after the next event for the same entity.
package reorder
