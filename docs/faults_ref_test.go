package docs_test

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/doc"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/targets/consumer"
)

// faultsPage is reference/faults.md: every fault of faults.Builtin, with
// its class, the abilities it implements, its settings and their
// defaults, and what its doc comment says it does.
func faultsPage(t *testing.T) string {
	pkg := packageDoc(t, "../faults")
	reg := faults.Builtin()
	names := append([]string(nil), harness.DefaultFaultNames...)
	for _, n := range reg.Names() {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	var b strings.Builder
	b.WriteString("# Faults\n\n")
	b.WriteString("Every fault of this version (`faults.Builtin()`), the default set first. A configuration's `faults:` lists " +
		"them by name, or as `{name: NAME, SETTING: VALUE}`; absent, a run tries the default set. Where each acts and what " +
		"the client sees is told in [Faults, explained](../explanations/faults.md); a new fault is written as " +
		"[faults/CREATING_FAULTS.md](../../faults/CREATING_FAULTS.md) says.\n\n")
	b.WriteString("The *class* decides which check owns an intent retried after the fault: " + classList() + ". An intent that met several faults (a generated trial's steps under one key) is owned by the heaviest class it met (`crash`, then `downstream-ambiguous`, then the others alike). Its finding names, for a duplicate, the fault of the attempt under way when the first effect landed (the effect the caller was not told of), and otherwise its first fault that acted.\n\n")
	var rows [][]string
	type entry struct {
		name, text string
		settings   []string
	}
	var entries []entry
	for _, n := range names {
		f, err := reg.New(n, nil)
		require.NoError(t, err)
		ty := typeDoc(pkg, reflect.TypeOf(f).Elem().Name())
		settings := faultSettings(t, f, fieldDocs(ty))
		inDefault := ""
		if slices.Contains(harness.DefaultFaultNames, n) {
			inDefault = "yes"
		}
		shown := make([]string, len(settings))
		for i, s := range settings {
			shown[i], _, _ = strings.Cut(s, " — ")
		}
		rows = append(rows, []string{fmt.Sprintf("[%s](#%s)", code(n), anchor(n)), code(string(faults.ClassOf(f))), abilities(f), strings.Join(shown, "; "), inDefault})
		text := docText(ty)
		if cf, ok := f.(faults.CrashFault); ok {
			if point := constNamed(pkg, string(cf.CrashPoint())); point != "" {
				text += " " + point
			}
		}
		entries = append(entries, entry{n, text, settings})
	}
	b.WriteString(table([]string{"name", "class", "acts through", "settings (default)", "default set"}, rows))
	for _, e := range entries {
		fmt.Fprintf(&b, "\n## %s\n\n%s\n", e.name, sentence(e.text))
		if len(e.settings) > 0 {
			b.WriteString("\nSettings:\n\n")
			for _, s := range e.settings {
				b.WriteString("- " + s + "\n")
			}
		}
	}
	b.WriteString("\n## Redelivery faults of consumer targets\n\n" +
		"A queue consumer is tried by default with these (`consumer.RedeliveryFaults()`, class `redelivery`), the crashes " +
		"before and after its effect and the downstream failures, and with the dependency faults and the crashes at a commit " +
		"when it declares a dependency. A configuration's `faults:` may name them as any other: a consumer is then tried " +
		"with what the list names, and a target of another kind reports them unsupported. What the broker does for each is " +
		"in the [consumers guide](../guides/consumers.md).\n\n")
	var redeliveries [][]string
	for _, f := range consumer.RedeliveryFaults() {
		what := f.Redelivery()
		redeliveries = append(redeliveries, []string{code(f.Name()), sentence(strings.ToUpper(what[:1]) + what[1:])})
	}
	b.WriteString(table([]string{"name", "what the broker (or the consumer's downstream call) does"}, redeliveries))
	return b.String()
}

// classList names the fault classes.
func classList() string {
	out := make([]string, len(faultClasses))
	for i, c := range faultClasses {
		out[i] = code(string(c))
	}
	return strings.Join(out, ", ")
}

// abilities lists the interfaces f implements beyond Fault: where it acts.
func abilities(f faults.Fault) string {
	var out []string
	if _, ok := f.(faults.ClientFault); ok {
		out = append(out, "client (gives up waiting)")
	}
	if _, ok := f.(faults.ProxyFault); ok {
		out = append(out, "fault proxy")
	}
	if _, ok := f.(faults.DisconnectFault); ok {
		out = append(out, "client leaves at the downstream call")
	}
	if d, ok := f.(faults.DownstreamFault); ok {
		if d.Ambiguous() {
			out = append(out, "fakes (ambiguous: the effect may have happened)")
		} else {
			out = append(out, "fakes")
		}
	}
	if c, ok := f.(faults.CrashFault); ok {
		out = append(out, "SIGKILL "+string(c.CrashPoint()))
	}
	if _, ok := f.(faults.Waiting); ok {
		out = append(out, "a wait (paced in trials)")
	}
	return strings.Join(out, ", ")
}

// faultSettings lists f's settings as "`name`: default — doc", from its
// JSON encoding and its fields' doc comments.
func faultSettings(t *testing.T, f faults.Fault, docs map[string]string) []string {
	raw, err := json.Marshal(f)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(raw, &m))
	byTag := map[string]string{}
	typ := reflect.TypeOf(f).Elem()
	for i := range typ.NumField() {
		tag, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		byTag[tag] = docs[typ.Field(i).Name]
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []string
	for _, k := range keys {
		s := fmt.Sprintf("%s: %s", code(k), code(fmt.Sprint(m[k])))
		if d := byTag[k]; d != "" {
			s += " — " + d
		}
		out = append(out, s)
	}
	return out
}

// constNamed returns the doc comment of the constant whose value is the
// string literal value.
func constNamed(pkg *doc.Package, value string) string {
	var values []*doc.Value
	values = append(values, pkg.Consts...)
	for _, ty := range pkg.Types {
		values = append(values, ty.Consts...)
	}
	for _, v := range values {
		for _, spec := range v.Decl.Specs {
			vs, ok := spec.(*ast.ValueSpec)
			if !ok || len(vs.Values) != 1 {
				continue
			}
			lit, ok := vs.Values[0].(*ast.BasicLit)
			if !ok {
				continue
			}
			if s, err := strconv.Unquote(lit.Value); err == nil && s == value {
				return oneLine(vs.Doc.Text())
			}
		}
	}
	return ""
}
