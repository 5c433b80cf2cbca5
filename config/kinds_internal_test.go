package config

import (
	"reflect"
	"strings"
	"testing"
)

// A kind's hints name fields of other kinds by their YAML paths: a hint
// for a field the kind has itself, or that no other kind has, is never
// shown.
func TestKindHintsNameOtherKindsFields(t *testing.T) {
	reg := Builtin()
	for _, k := range reg.Kinds {
		for field := range k.Hints {
			rel := strings.Split(field, ".")
			if hasField(reflect.TypeOf(k.New()), rel) {
				t.Errorf("%s's hint for %q: an %s target has that field, so the hint is never shown", k.Name, field, k.Name)
			}
			other := false
			for _, o := range reg.Kinds {
				other = other || o.Name != k.Name && hasField(reflect.TypeOf(o.New()), rel)
			}
			if !other {
				t.Errorf("%s's hint for %q: no other kind has that field, so the hint is never shown", k.Name, field)
			}
		}
	}
}

func TestArticle(t *testing.T) {
	for kind, want := range map[string]string{"http": "an http", "mcp": "an mcp", "cli": "a cli", "webhook": "a webhook", "container": "a container", "consumer": "a consumer", "sql": "an sql"} {
		if got := article(kind); got != want {
			t.Errorf("article(%q) = %q, want %q", kind, got, want)
		}
	}
}
