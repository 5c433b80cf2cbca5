// Package docs holds no code: its tests generate the reference pages under
// reference/ from idemcheck's own registries and schemas (the
// configuration's JSON Schema, the checks and the rubric, the faults, the
// JSON report's schema) and fail when a committed page is stale, and they
// check that every relative link in the README and in these pages leads to
// a file (and heading) that exists.
//
// Regenerate the pages with
//
//	go generate ./docs/ ./cmd/idemcheck/
//
// or, one by one, go test ./docs/ -run TestReference -update (and
// go test ./cmd/idemcheck/ -run TestCLIReference -update for the CLI page,
// which is generated where the command's flag sets are).
package docs

//go:generate go test -run ^TestReference -update
