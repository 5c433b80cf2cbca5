//go:build linux

package main

import "golang.org/x/sys/unix"

// keepPrivate marks the process as not dumpable: its files under /proc
// that only its owner may read (its environment, its memory, its open
// files) become root's. A target runs as the same user as idemcheck,
// and is told idemcheck's pid; without this it could read idemcheck's
// environment, the CI tokens and keys it is never given, from
// /proc/PID/environ, or attach to idemcheck as a debugger would. A
// process idemcheck starts is not affected: exec makes it dumpable
// again. Root reads every process's files all the same: run idemcheck
// as a user of its own to keep a target out.
func keepPrivate() { _ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0) }

// private reports whether keepPrivate took effect.
func private() bool {
	v, err := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0)
	return err == nil && v == 0
}
