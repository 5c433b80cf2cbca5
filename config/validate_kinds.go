package config

import (
	"reflect"
	"slices"
	"strings"
)

// Target is one struct for every kind of target, so that the decoder
// reports a misspelt field the same way whatever the kind; which field
// belongs to which kind is this table's job. A field it does not list
// (name, kind, identity, timeout) belongs to every kind.
var targetFields = map[string][]string{
	"url":              {KindHTTP, KindWebhook, KindContainer, KindMCP},
	"start":            {KindHTTP, KindWebhook, KindMCP},
	"key_header":       {KindHTTP, KindContainer},
	"effect":           {KindHTTP, KindCLI, KindContainer, KindMCP},
	"dry_run":          {KindHTTP, KindContainer},
	"operations":       {KindHTTP, KindCLI, KindContainer},
	"allow_remote":     {KindHTTP, KindWebhook, KindMCP},
	"observe":          {KindHTTP, KindContainer},
	"limits":           {KindHTTP},
	"replicas":         {KindHTTP},
	"callers":          {KindHTTP, KindContainer},
	"profile":          {KindHTTP, KindContainer},
	"command":          {KindCLI, KindMCP},
	"env":              {KindCLI, KindContainer, KindMCP},
	"dir":              {KindCLI, KindMCP},
	"key_flag":         {KindCLI},
	"dry_run_flag":     {KindCLI},
	"retry_exit_codes": {KindCLI},
	"signature":        {KindWebhook},
	"id_header":        {KindWebhook},
	"events":           {KindWebhook},
	"image":            {KindContainer},
	"build":            {KindContainer},
	"cmd":              {KindContainer},
	"port":             {KindContainer},
	"user":             {KindContainer},
	"ready":            {KindContainer},
	"key_argument":     {KindMCP},
	"key_meta":         {KindMCP},
	"dry_run_argument": {KindMCP},
	"tools":            {KindMCP},
}

// kindHints say what to write instead of a field that belongs to another
// kind, where the two are easily confused; by field, then by kind.
var kindHints = map[string]map[string]string{
	"command": {
		KindHTTP:      "to have idemcheck start an http target, write start: {command: [...]}",
		KindWebhook:   "to have idemcheck start a webhook handler, write start: {command: [...]}",
		KindContainer: "a container's arguments go in cmd; its program is the image's entrypoint",
	},
	"start": {
		KindContainer: "a container target is started from image or build, with cmd, env and ready",
	},
	"operations": {
		KindWebhook: "a webhook target lists events, each with name, path and body",
		KindMCP:     "an mcp target lists tools (or none: every tool tools/list returns), each with its name",
	},
	"events": {
		KindHTTP:      "an http target lists operations; for a webhook handler write kind: webhook",
		KindContainer: "a container target lists operations",
	},
	"ready": {
		KindHTTP:    "an http target's readiness goes under start: {command: [...], ready: {path: /healthz}}",
		KindWebhook: "a webhook handler's readiness goes under start: {command: [...], ready: {path: /healthz}}",
	},
	"allow_remote": {
		KindContainer: "a container target uses the host's network and is always reached on loopback",
	},
}

// fieldOf says whether the target field named field belongs to kind. For
// a missing or unknown kind, the fields of an http target do.
func fieldOf(field, kind string) bool {
	ks, ok := targetFields[field]
	if !ok {
		return true
	}
	if !slices.Contains(kinds, kind) {
		kind = KindHTTP
	}
	return slices.Contains(ks, kind)
}

var targetFieldNames = func() []string {
	var names []string
	for _, f := range structFields(reflect.TypeFor[Target]()) {
		names = append(names, f.name)
	}
	return names
}()

// kindFields reports each field that the target at p sets although it
// belongs to other kinds of target. Without a known kind it says nothing:
// the kind's own error comes first.
func (v *validator) kindFields(p, kind string) {
	if !slices.Contains(kinds, kind) {
		return
	}
	for _, f := range targetFieldNames {
		path := pathField(p, f)
		if fieldOf(f, kind) || !v.written(path) {
			continue
		}
		msg := f + " is for " + kindList(targetFields[f]) + "; this is " + article(kind) + " target (see kind)"
		if hint := kindHints[f][kind]; hint != "" {
			msg += "; " + hint
		}
		v.errorf(path, "%s", msg)
	}
}

// article returns kind with its indefinite article: "an http", "a cli",
// "an mcp".
func article(kind string) string {
	if kind == KindHTTP || kind == KindMCP {
		return "an " + kind
	}
	return "a " + kind
}

// kindList names the kinds a field belongs to: "a cli target", "http and
// container targets".
func kindList(ks []string) string {
	switch len(ks) {
	case 1:
		return article(ks[0]) + " target"
	default:
		return strings.Join(ks[:len(ks)-1], ", ") + " and " + ks[len(ks)-1] + " targets"
	}
}
