// Package relay is what a dependency proxy does on one target connection
// whatever its protocol: record the connection's events, and act when a
// rule armed for an intent applies (stall, hooks before a commit and after
// its answer, withholding that answer), then close both sides. The
// protocol packages decide when; this package does the acting the same
// way for all.
package relay
