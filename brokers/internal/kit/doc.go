// Package kit is what every broker shares: the observation log, the armed
// faults, the publisher that carries out Reorder, the lifetime that bounds
// held acks, the placeholders, the maps from the broker's positions to
// event ids, the order in which a broker closes, and the test helper that
// starts one. A broker embeds a Core and adds its server, its proxy and
// its protocol.
package kit
