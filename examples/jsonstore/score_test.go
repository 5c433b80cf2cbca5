package jsonstore_test

import (
	"testing"

	"github.com/idemcheck/idemcheck/examples/internal/reftest"
	"github.com/idemcheck/idemcheck/examples/jsonstore"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/observe"
	clitarget "github.com/idemcheck/idemcheck/targets/cli"
)

// spec is the harness spec of one profile: the CLI adapter runs the tool,
// the marker rides in the note, and a file observer counts the records in
// the store file.
func spec(t *testing.T, profile string) harness.Spec {
	s := clitarget.Spec(clitarget.Config{
		Name:    "jsonstore-" + profile,
		Command: append(reftest.Command(t), "--profile", profile, "--file", "{{state_dir}}/store.json", "--window", "100ms"),
		Operations: []clitarget.Operation{{
			Name: "put", Mutating: true,
			Args:   []string{"put", "--note", "record {{marker}}", "--amount", "{{input.amount}}"},
			Inputs: map[string]harness.Input{"amount": {Kind: "int", Min: 1, Max: 9999}},
		}},
	})
	s.Observers = []harness.ObserverStarter{observe.Spec{Name: "store", Kind: "record",
		Source: observe.File{Path: "{{state_dir}}/store.json", Items: "records", ID: "id"}}.Starter()}
	s.Options = []harness.Option{harness.WithBursts(3), harness.WithLateRetry(24, 0)}
	return s
}

// Each profile scores what it is built for, judged by the harness on what
// the file observer counted, generated trials included. rewrite's lost
// writes land on whichever intents overlap: besides the checks it always
// fails, a critical finding (a lost or doubled intent) makes its 0.
func TestScores(t *testing.T) {
	reftest.Scores(t, jsonstore.Profiles, jsonstore.Describe, spec, harness.WithTrials(100))
}
