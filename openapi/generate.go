package openapi

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/idemcheck/idemcheck/internal/lazyregexp"
)

// Options tune the generated configuration.
type Options struct {
	// Name is the target's name (default: from the spec's title).
	Name string
	// Source names the spec in the header comment.
	Source string
}

// Config is a generated configuration.
type Config struct {
	// YAML is the configuration file.
	YAML string
	// Operations counts the operations written.
	Operations int
	// TODOs lists what the user must fill in, one line each.
	TODOs []string
}

// Load parses and validates an OpenAPI document from a file.
func Load(ctx context.Context, path string) (*openapi3.T, error) {
	loader := openapi3.NewLoader()
	loader.Context = ctx
	doc, err := loader.LoadFromFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: not an OpenAPI 3 document: %w", path, err)
	}
	return doc, validate(ctx, path, doc)
}

// LoadData parses and validates an OpenAPI document held in memory.
func LoadData(ctx context.Context, name string, data []byte) (*openapi3.T, error) {
	loader := openapi3.NewLoader()
	loader.Context = ctx
	doc, err := loader.LoadFromData(data)
	if err != nil {
		return nil, fmt.Errorf("%s: not an OpenAPI 3 document: %w", name, err)
	}
	return doc, validate(ctx, name, doc)
}

func validate(ctx context.Context, name string, doc *openapi3.T) error {
	if !strings.HasPrefix(doc.OpenAPI, "3.") {
		return fmt.Errorf("%s: openapi %q: expected an OpenAPI 3.0 or 3.1 document", name, doc.OpenAPI)
	}
	if err := doc.Validate(ctx); err != nil {
		return fmt.Errorf("%s: invalid OpenAPI document: %w", name, err)
	}
	return nil
}

// op is one operation as the configuration will have it.
type op struct {
	name      string
	method    string
	path      string // with {{input.X}} and {{marker}}
	mutating  bool
	headers   [][2]string
	body      string
	inputs    []input
	marker    bool
	noMarker  string // why no marker could be placed
	keyHeader string
	dryRun    string // the query parameter asking for a dry run
	summary   string
	rawPath   string
	listItems *string // for a GET: the JSON path of the listed objects
	search    string  // for a GET: a query parameter that searches
	// pathParams are the path's parameters ({id}): generated values name
	// nothing that exists.
	pathParams []string
	// identity is where the operation's success reply names what it
	// made, when its schema says ("id", "data.id"); "" otherwise.
	identity string
	// exactMarker: the marker field holds the marker alone, which a list
	// filters by whole.
	exactMarker bool
}

type input struct {
	name string
	yaml string // {int: [1, 100]}, {choice: [a, b]}, {string: {prefix: x_}}
}

var methodOrder = []string{"POST", "PUT", "PATCH", "DELETE", "GET", "HEAD"}

// Generate writes the configuration for doc.
func Generate(doc *openapi3.T, opts Options) Config {
	var ops []*op
	paths := doc.Paths.Map()
	keys := make([]string, 0, len(paths))
	for p := range paths {
		keys = append(keys, p)
	}
	sort.Strings(keys)
	used := map[string]bool{}
	for _, p := range keys {
		item := paths[p]
		byMethod := item.Operations()
		filter := listFilter(item)
		for _, m := range methodOrder {
			o := byMethod[m]
			if o == nil {
				continue
			}
			g := build(p, m, o, append(append(openapi3.Parameters{}, item.Parameters...), o.Parameters...), filter)
			g.name = uniqueName(opName(o.OperationID, m, p), used)
			ops = append(ops, g)
		}
	}
	return render(doc, ops, opts)
}

// listFilter finds, on a collection whose GET lists objects and has no
// search parameter, a string query parameter of the GET named as a plain
// string property of its POST's JSON body (GET /invoices?customer= and
// POST /invoices {customer}): the POST's marker goes in that property,
// and the GET finds each intent's objects by it. "" when there is none.
func listFilter(item *openapi3.PathItem) string {
	get, post := item.Get, item.Post
	if get == nil || post == nil || listItems(get) == nil || post.RequestBody == nil || post.RequestBody.Value == nil {
		return ""
	}
	mt := jsonMedia(post.RequestBody.Value.Content)
	if mt == nil || mt.Schema == nil || mt.Schema.Value == nil || !isType(mt.Schema.Value, "object") {
		return ""
	}
	props := mt.Schema.Value.Properties
	var names []string
	for _, pr := range append(append(openapi3.Parameters{}, item.Parameters...), get.Parameters...) {
		if p := pr.Value; p != nil && p.In == "query" {
			if searchRE.MatchString(p.Name) {
				return "" // it searches already
			}
			if ref, ok := props[p.Name]; ok && ref.Value != nil && plainString(ref.Value) && (p.Schema == nil || p.Schema.Value == nil || isType(p.Schema.Value, "string")) {
				names = append(names, p.Name)
			}
		}
	}
	if len(names) == 0 {
		return ""
	}
	sort.Strings(names)
	return names[0]
}

var nonName = lazyregexp.New(`[^a-z0-9]+`)

func opName(id, method, path string) string {
	s := id
	if s == "" {
		s = strings.ToLower(method) + " " + path
	}
	// camelCase → kebab-case
	var b strings.Builder
	for i, r := range s {
		if r >= 'A' && r <= 'Z' && i > 0 {
			b.WriteByte('-')
		}
		b.WriteRune(r)
	}
	n := strings.Trim(nonName.ReplaceAllString(strings.ToLower(b.String()), "-"), "-")
	if n == "" {
		n = "operation"
	}
	return n
}

func uniqueName(n string, used map[string]bool) string {
	name := n
	for i := 2; used[name]; i++ {
		name = fmt.Sprintf("%s-%d", n, i)
	}
	used[name] = true
	return name
}

var (
	keyHeaderRE = lazyregexp.New(`(?i)idempot|request-?id|dedup|x-?request-?key`)
	dryRunRE    = lazyregexp.New(`(?i)^(dry[-_]?run|preview|validate[-_]?only|simulate)$`)
	searchRE    = lazyregexp.New(`(?i)^(search|q|query|filter|note|text|contains)$`)
	// freeTextNames are property names that hold free text, best first.
	freeTextNames = []string{"note", "notes", "description", "memo", "comment", "comments", "message", "remarks", "text", "details", "reference", "title", "label", "name"}
	pathParamRE   = lazyregexp.New(`\{([^}]+)\}`)
)

// build makes the operation of method on path; filter, when not "", is
// the query parameter of the collection's list by which the marker of
// what its POST creates is found (see listFilter).
func build(path, method string, o *openapi3.Operation, params openapi3.Parameters, filter string) *op {
	g := &op{method: method, rawPath: path, mutating: method != "GET" && method != "HEAD", summary: o.Summary}
	seen := map[string]bool{}
	g.path = pathParamRE.ReplaceAllStringFunc(path, func(m string) string {
		name := inputName(m[1 : len(m)-1])
		g.pathParams = append(g.pathParams, m)
		var schema *openapi3.Schema
		for _, p := range params {
			if p.Value != nil && p.Value.In == "path" && p.Value.Name == m[1:len(m)-1] && p.Value.Schema != nil {
				schema = p.Value.Schema.Value
			}
		}
		g.addInput(name, schema, seen)
		return "{{input." + name + "}}"
	})
	var query []string
	for _, pr := range params {
		p := pr.Value
		if p == nil {
			continue
		}
		var schema *openapi3.Schema
		if p.Schema != nil {
			schema = p.Schema.Value
		}
		switch p.In {
		case "header":
			if keyHeaderRE.MatchString(p.Name) {
				g.keyHeader = p.Name
			} else if p.Required {
				name := inputName(p.Name)
				g.addInput(name, schema, seen)
				g.headers = append(g.headers, [2]string{p.Name, "{{input." + name + "}}"})
			}
		case "query":
			switch {
			case dryRunRE.MatchString(p.Name):
				g.dryRun = p.Name
			case !g.mutating && g.search == "" && (searchRE.MatchString(p.Name) || p.Name == filter):
				g.search = p.Name
				query = append(query, url.QueryEscape(p.Name)+"={{marker}}")
				g.marker = true
			case p.Required:
				name := inputName(p.Name)
				g.addInput(name, schema, seen)
				query = append(query, url.QueryEscape(p.Name)+"={{input."+name+"}}")
			}
		}
	}
	if len(query) > 0 {
		g.path += "?" + strings.Join(query, "&")
	}
	if rb := o.RequestBody; rb != nil && rb.Value != nil {
		if mt := jsonMedia(rb.Value.Content); mt != nil && mt.Schema != nil && mt.Schema.Value != nil {
			g.headers = append(g.headers, [2]string{"Content-Type", "application/json"})
			field := freeTextField(mt.Schema.Value)
			if method == "POST" && filter != "" {
				field, g.exactMarker = filter, true // what the collection's list finds it by
			}
			g.body = g.value(mt.Schema.Value, "", field, seen, 0)
			if field != "" {
				g.marker = true
			}
		}
	}
	if g.mutating {
		g.identity = identityOf(o)
	}
	if !g.mutating {
		if g.search == "" {
			g.headers = append(g.headers, [2]string{"X-Idemcheck-Trace", "{{marker}}"})
			g.marker = true
		}
		g.listItems = listItems(o)
	} else if !g.marker {
		g.noMarker = "no free-text field in its request body"
		if g.body == "" {
			g.noMarker = "no JSON request body"
		}
	}
	return g
}

func jsonMedia(c openapi3.Content) *openapi3.MediaType {
	if mt := c.Get("application/json"); mt != nil {
		return mt
	}
	for k, mt := range c {
		if strings.HasSuffix(strings.ToLower(k), "+json") {
			return mt
		}
	}
	return nil
}

func isType(s *openapi3.Schema, t string) bool { return s != nil && s.Type != nil && s.Type.Is(t) }

// plainString is a string schema with no enum, format or pattern: free text.
func plainString(s *openapi3.Schema) bool {
	return isType(s, "string") && len(s.Enum) == 0 && s.Format == "" && s.Pattern == "" && !s.ReadOnly &&
		(s.MaxLength == nil || *s.MaxLength >= 40)
}

// freeTextField picks the top-level property that takes the marker.
func freeTextField(s *openapi3.Schema) string {
	if !isType(s, "object") {
		return ""
	}
	for _, n := range freeTextNames {
		for prop, ref := range s.Properties {
			if strings.EqualFold(prop, n) && ref.Value != nil && plainString(ref.Value) {
				return prop
			}
		}
	}
	return ""
}

// value writes the JSON template of a schema; field is the property that
// takes the marker.
func (g *op) value(s *openapi3.Schema, prefix, field string, seen map[string]bool, depth int) string {
	if s == nil || depth > 4 {
		return "null"
	}
	switch {
	case isType(s, "object") || (s.Type == nil && len(s.Properties) > 0):
		required := map[string]bool{}
		for _, r := range s.Required {
			required[r] = true
		}
		props := make([]string, 0, len(s.Properties))
		for p, ref := range s.Properties {
			if (required[p] || (depth == 0 && p == field)) && ref.Value != nil && !ref.Value.ReadOnly {
				props = append(props, p)
			}
		}
		sort.Strings(props)
		parts := make([]string, 0, len(props))
		for _, p := range props {
			var v string
			switch {
			case depth == 0 && p == field && g.exactMarker:
				v = `"{{marker}}"` // a list filters by it, whole
			case depth == 0 && p == field:
				v = strconv.Quote(g.rawPathWord() + " {{marker}}")
			default:
				v = g.value(s.Properties[p].Value, prefix+p+"_", "", seen, depth+1)
			}
			parts = append(parts, strconv.Quote(p)+":"+v)
		}
		return "{" + strings.Join(parts, ",") + "}"
	case isType(s, "array"):
		if s.MinItems == 0 || s.Items == nil {
			return "[]"
		}
		return "[" + g.value(s.Items.Value, prefix, "", seen, depth+1) + "]"
	case isType(s, "boolean"):
		return "false"
	case isType(s, "null"):
		return "null"
	}
	name := strings.TrimSuffix(prefix, "_")
	if name == "" {
		name = "value"
	}
	name = inputName(name)
	g.addInput(name, s, seen)
	if isType(s, "string") || len(s.Enum) > 0 && isStringEnum(s.Enum) {
		return `"{{input.` + name + `}}"`
	}
	return "{{input." + name + "}}"
}

func isStringEnum(vals []any) bool {
	for _, v := range vals {
		if _, ok := v.(string); !ok {
			return false
		}
	}
	return true
}

// rawPathWord is a word naming what the operation makes, for the text
// around the marker: "/v1/orders" gives "orders".
func (g *op) rawPathWord() string {
	parts := strings.Split(strings.Trim(g.rawPath, "/"), "/")
	for i := len(parts) - 1; i >= 0; i-- {
		if p := parts[i]; p != "" && !strings.HasPrefix(p, "{") && !lazyregexp.New(`^v\d+$`).MatchString(p) {
			return p
		}
	}
	return "idemcheck"
}

var inputNameRE = lazyregexp.New(`[^A-Za-z0-9_]+`)

func inputName(s string) string {
	n := strings.Trim(inputNameRE.ReplaceAllString(s, "_"), "_")
	if n == "" || (n[0] >= '0' && n[0] <= '9') {
		n = "v_" + n
	}
	return strings.ToLower(n)
}

// addInput declares a generated input for schema s.
func (g *op) addInput(name string, s *openapi3.Schema, seen map[string]bool) {
	if seen[name] {
		return
	}
	seen[name] = true
	g.inputs = append(g.inputs, input{name: name, yaml: inputYAML(name, s)})
}

func inputYAML(name string, s *openapi3.Schema) string {
	if s == nil {
		return "{string: {prefix: " + prefixFor(name) + "}}"
	}
	if len(s.Enum) > 0 {
		vals := make([]string, 0, len(s.Enum))
		for _, v := range s.Enum {
			vals = append(vals, strconv.Quote(fmt.Sprint(v)))
		}
		return "{choice: [" + strings.Join(vals, ", ") + "]}"
	}
	if isType(s, "integer") || isType(s, "number") {
		lo, hi := 1, 1000
		if s.Min != nil {
			lo = int(*s.Min)
			if hi < lo {
				hi = lo + 1000
			}
		}
		if s.Max != nil {
			hi = int(*s.Max)
		}
		if hi < lo {
			hi = lo
		}
		return fmt.Sprintf("{int: [%d, %d]}", lo, hi)
	}
	length := 8
	if s.MaxLength != nil && int(*s.MaxLength) < length+len(prefixFor(name)) {
		length = max(1, int(*s.MaxLength)-len(prefixFor(name)))
	}
	return fmt.Sprintf("{string: {prefix: %s, length: %d}}", prefixFor(name), length)
}

func prefixFor(name string) string {
	p := name
	if len(p) > 3 {
		p = p[:3]
	}
	return p + "_"
}

// identityOf finds where a success reply (201, else 200) of o names what
// it made: "id" when its JSON object has an id property, "data.id" when
// its data object has one; "" otherwise.
func identityOf(o *openapi3.Operation) string {
	if o.Responses == nil {
		return ""
	}
	for _, code := range []int{201, 200} {
		r := o.Responses.Status(code)
		if r == nil || r.Value == nil {
			continue
		}
		mt := jsonMedia(r.Value.Content)
		if mt == nil || mt.Schema == nil || mt.Schema.Value == nil {
			continue
		}
		props := mt.Schema.Value.Properties
		if _, ok := props["id"]; ok {
			return "id"
		}
		if d, ok := props["data"]; ok && d.Value != nil {
			if _, ok := d.Value.Properties["id"]; ok {
				return "data.id"
			}
		}
	}
	return ""
}

// listItems finds where a GET's 200 reply lists objects: "" when the reply
// is an array, the name of an array property of the reply object, or nil.
func listItems(o *openapi3.Operation) *string {
	if o.Responses == nil {
		return nil
	}
	r := o.Responses.Status(200)
	if r == nil || r.Value == nil {
		return nil
	}
	mt := jsonMedia(r.Value.Content)
	if mt == nil || mt.Schema == nil || mt.Schema.Value == nil {
		return nil
	}
	s := mt.Schema.Value
	if isType(s, "array") {
		empty := ""
		return &empty
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if v := s.Properties[n].Value; v != nil && isType(v, "array") {
			return &n
		}
	}
	return nil
}
