// Package refprofile describes the profiles of the reference targets that
// keep their effects in their own data (examples/ledger, jsonstore, mcpdb,
// clidb): the score each is built for, its planted flaw and the checks the
// flaw fails, which their tests hold the harness to.
package refprofile
