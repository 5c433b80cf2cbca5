// Package lazyregexp holds regular expressions that a package declares at
// its top level but compiles when they are first used. Every start of a
// program pays for what its packages compile at initialisation, and
// idemcheck's binary is started again for every call of a reference
// command-line tool: most of its expressions serve commands that such a
// start never reaches.
//
// An expression that does not compile panics on first use, as
// regexp.MustCompile would at initialisation; Check compiles every
// expression made so far, for a test to find such a mistake before it is
// used.
package lazyregexp
