package observe_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/observe"
)

func write(t testing.TB, path, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
}

// ids observes marker once on a fresh ledger and returns the identities of
// the effects recorded.
func ids(t *testing.T, o *observe.Observer, marker string) []string {
	t.Helper()
	ledger := fakes.NewLedger()
	require.NoError(t, o.Observe(context.Background(), ledger, marker))
	var out []string
	for _, e := range ledger.Effects() {
		out = append(out, e.ID)
	}
	return out
}

func TestFileObserver(t *testing.T) {
	dir := t.TempDir()
	// The SDK memory server's file: a JSON list of entities and relations.
	write(t, filepath.Join(dir, "memory.json"), `[{"type":"entity","name":"`+m1+`","entityType":"person","observations":["x"]},`+
		`{"type":"entity","name":"other","entityType":"person","observations":["seen `+m2+`"]},`+
		`{"type":"relation","from":"`+m1+`","to":"other","relationType":"knows"},`+
		`{"type":"entity","name":"`+m1+`","entityType":"person","observations":[]}]`)
	// A graph kept under a key, one identity per entity.
	write(t, filepath.Join(dir, "graph.json"), `{"entities":[{"name":"a","note":"`+m1+`"},{"name":"b","note":"`+m1+`"},{"name":"a","note":"`+m1+` again"}]}`)
	// A key-and-result store, one record a line.
	write(t, filepath.Join(dir, "results.jsonl"), `{"key":"k1","result":{"memo":"`+m1+`"}}`+"\n\n"+`{"key":"k2","result":{"memo":"`+m2+`"}}`+"\n"+`{"key":"k1","result":{"memo":"`+m1+`"}}`+"\n")
	// A directory, one object a file.
	write(t, filepath.Join(dir, "orders", "o1.json"), `{"id":"o1","note":"`+m1+`"}`)
	write(t, filepath.Join(dir, "orders", "o2.json"), `{"id":"o2","note":"`+m2+`"}`)
	write(t, filepath.Join(dir, "orders", "o3.json"), `{"id":"o3","note":"`+m1+`"}`)
	write(t, filepath.Join(dir, "orders", "README"), `not an order `+m1)
	write(t, filepath.Join(dir, "empty.json"), ``)

	for _, tc := range []struct {
		why  string
		file observe.File
		want []string
	}{
		{"a list, items by place: the relation names the marker too, and a duplicated entity is two", observe.File{Path: "{{state_dir}}/memory.json"}, []string{"[0]", "[2]", "[3]"}},
		{"items under a path, by identity: a repeated name is a second effect", observe.File{Path: "{{state_dir}}/graph.json", Items: "entities", ID: "name"}, []string{"a", "b", "a#2"}},
		{"JSONL by line", observe.File{Path: "{{state_dir}}/results.jsonl"}, []string{":1", ":4"}},
		{"JSONL by key: the same key twice is a duplicate", observe.File{Path: "{{state_dir}}/results.jsonl", ID: "key"}, []string{"k1", "k1#2"}},
		{"a directory, one object a file, by pattern", observe.File{Path: "{{state_dir}}/orders", Match: "*.json"}, []string{"o1.json", "o3.json"}},
		{"a directory by identity", observe.File{Path: "{{state_dir}}/orders", Match: "*.json", ID: "id"}, []string{"o1", "o3"}},
		{"an empty file: created, not written yet", observe.File{Path: "{{state_dir}}/empty.json"}, nil},
	} {
		require.NoError(t, tc.file.Validate(), tc.why)
		o := open(t, observe.Spec{Name: "store", Settle: quick, Source: tc.file}, dir)
		assert.Equal(t, tc.want, ids(t, o, m1), tc.why)
	}
}

func TestFileObserverErrors(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "store.json"), `{"entities": [ {"name": "a"`)
	write(t, filepath.Join(dir, "store.jsonl"), `{"key":"k1"}`+"\n"+`key=k2`+"\n")
	write(t, filepath.Join(dir, "keyed.json"), `[{"name":"`+m1+`"}]`)
	write(t, filepath.Join(dir, "tasks.json"), "{\n  \"tasks\": [{\"id\": 1, \"title\": \""+m1+"\"}],\n  \"events\": []\n}\n")
	for _, tc := range []struct {
		why  string
		file observe.File
		want string
	}{
		{"a document cut short", observe.File{Path: "{{state_dir}}/store.json"}, "observer store (file): " + filepath.Join(dir, "store.json") + " is not JSON: unexpected end of JSON input"},
		{"a line that is not JSON", observe.File{Path: "{{state_dir}}/store.jsonl"}, filepath.Join(dir, "store.jsonl") + " line 2 is not JSON"},
		{"an item without its identity", observe.File{Path: "{{state_dir}}/keyed.json", ID: "id"}, `item 0 has no "id"`},
		{"items under a path that is not there", observe.File{Path: "{{state_dir}}/keyed.json", Items: "entities"}, `has no "entities"`},
		{"a document whose items are in its lists, without items:, is told which lists it has, on one line", observe.File{Path: "{{state_dir}}/tasks.json", ID: "id"},
			`item 0 has no "id": { "tasks": [{"id": 1, "title": "` + m1 + `"}], "events": [] }; the document is one object holding lists (events, tasks): name the list its items are in with items:, such as items: events`},
	} {
		o := open(t, observe.Spec{Name: "store", Settle: failingFile, Source: tc.file}, dir)
		err := o.Observe(context.Background(), fakes.NewLedger(), m1)
		require.Error(t, err, tc.why)
		assert.Contains(t, err.Error(), tc.want, tc.why)
		assert.Contains(t, o.Summary(), "1 read failed", tc.why)
	}

	o := open(t, observe.Spec{Name: "store", Settle: quick, Source: observe.File{Path: "{{state_dir}}/nowhere.json"}}, dir)
	assert.Empty(t, ids(t, o, m1), "a file not written yet holds nothing")
	assert.Equal(t, "store (file) found no item for any of the 1 marker; "+filepath.Join(dir, "nowhere.json")+" never existed", o.Summary())

	for _, bad := range []observe.File{{}, {Path: "x", Format: "yaml"}, {Path: "x", Match: "["}} {
		assert.Error(t, bad.Validate(), "%+v", bad)
	}
	_, err := observe.Spec{Source: observe.File{Path: "/tmp/{{marker}}.json"}}.Open(context.Background(), observe.Where{})
	assert.ErrorContains(t, err, "{{marker}} cannot be in a path")
}
