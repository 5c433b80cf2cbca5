//go:build !linux

package main

// keepPrivate does nothing here: only Linux serves a process's
// environment under /proc.
func keepPrivate() {}

// private reports whether keepPrivate took effect: never here.
func private() bool { return false }
