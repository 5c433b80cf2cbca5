package config

import (
	"cmp"
	"slices"
	"strings"
)

// webhookTarget checks what a webhook target needs: a handler URL, a
// signature and events. Nothing here may print the signing secret.
func (v *validator) webhookTarget(p string, t *Target, fakes map[string]bool) {
	v.url(p, t, fakes)
	sig := pathField(p, "signature")
	if t.Signature == nil {
		v.missing(sig, "say how deliveries are signed, such as signature: {secret: whsec_…} (HMAC-SHA256, scheme stripe), or signature: {scheme: none} for a handler that checks no signature")
	} else {
		v.signature(sig, t.Signature)
	}
	idHeader := pathField(p, "id_header")
	if t.IDHeader != "" && !validHeaderName(t.IDHeader) {
		v.errorf(idHeader, "invalid header name %q", t.IDHeader)
	}
	// The adapter sets these headers on every delivery; an event's own
	// header of the same name would be silently replaced.
	reserved := map[string]string{}
	if t.Signature != nil && t.Signature.Scheme != "none" {
		h := cmp.Or(t.Signature.Header, DefaultSignatureHeader)
		reserved[strings.ToLower(h)] = "the signature (signature.header)"
	}
	if t.IDHeader != "" {
		if what, clash := reserved[strings.ToLower(t.IDHeader)]; clash {
			v.errorf(idHeader, "%q already carries %s: the event id needs a header of its own", t.IDHeader, what)
		}
		reserved[strings.ToLower(t.IDHeader)] = "the event id (id_header)"
	}

	events := pathField(p, "events")
	if len(t.Events) == 0 {
		v.missing(events, "list at least one event the handler receives, with its name, path and body, such as {name: invoice.paid, path: /webhooks, body: '{\"id\":\"{{key}}\",\"memo\":\"{{marker}}\"}'}")
	}
	first := map[string]int{}
	for i := range t.Events {
		ev := &t.Events[i]
		ep := pathIndex(events, i)
		v.event(ep, ev, t.IDHeader != "", reserved)
		if ev.Name == "" {
			continue
		}
		if j, dup := first[ev.Name]; dup {
			v.errorf(pathField(ep, "name"), "duplicate event name %q (already used by events[%d] at line %d); event names must be unique within a target", ev.Name, j, lookupPos(v.pos, pathField(pathIndex(events, j), "name")).line)
		} else {
			first[ev.Name] = i
		}
	}
}

// signature checks how deliveries are signed. The secret is never part of
// a message.
func (v *validator) signature(p string, s *Signature) {
	scheme := cmp.Or(s.Scheme, DefaultSignatureScheme)
	if !slices.Contains(SignatureSchemes, scheme) {
		v.errorf(pathField(p, "scheme"), "unknown scheme %q (%sknown schemes: %s)", s.Scheme, didYouMean(s.Scheme, SignatureSchemes), strings.Join(SignatureSchemes, ", "))
		scheme = ""
	}
	if s.Secret == "" && scheme != "none" {
		v.missing(pathField(p, "secret"), "the signing secret the handler shares with idemcheck, written as is; or scheme: none for a handler that checks no signature")
	}
	if s.Header != "" && !validHeaderName(s.Header) {
		v.errorf(pathField(p, "header"), "invalid header name %q", s.Header)
	}
	if s.Prefix != "" && (scheme == "stripe" || scheme == "none") {
		v.errorf(pathField(p, "prefix"), "a prefix is for the hex and base64 schemes; scheme %s has none", scheme)
	}
}

// event checks one kind of event: where it goes, and that every delivery
// carries its event id and its intent's marker.
func (v *validator) event(p string, ev *Event, idHeader bool, reserved map[string]string) {
	if ev.Name == "" {
		v.missing(pathField(p, "name"), "give the event a name, such as \"invoice.paid\"")
	}
	path := pathField(p, "path")
	switch {
	case ev.Path == "":
		v.missing(path, "the handler's endpoint under the target's URL, starting with \"/\", such as /webhooks")
	case !strings.HasPrefix(ev.Path, "/"):
		v.errorf(path, "must start with \"/\", got %q", ev.Path)
	}
	used := v.intentTemplate(path, ev.Path, ev.Inputs)
	headers := pathField(p, "headers")
	for _, k := range sortedKeys(ev.Headers) {
		hp := pathKey(headers, k)
		switch what, clash := reserved[strings.ToLower(k)]; {
		case !validHeaderName(k):
			v.errorf(hp, "invalid header name %q", k)
		case clash:
			v.errorf(hp, "%s is set by idemcheck on every delivery: it carries %s; remove it here", k, what)
		}
		used = used.or(v.intentTemplate(hp, v.envRefs(hp, ev.Headers[k]), ev.Inputs, phCreated))
	}
	body := pathField(p, "body")
	if ev.Body == "" {
		v.missing(body, "the payload, with the event id as {{key}} and the intent's marker, such as '{\"id\":\"{{key}}\",\"type\":\"invoice.paid\",\"memo\":\"{{marker}}\"}'")
	}
	used = used.or(v.intentTemplate(body, ev.Body, ev.Inputs, phCreated))

	inputs := pathField(p, "inputs")
	for _, name := range sortedKeys(ev.Inputs) {
		ip := pathKey(inputs, name)
		if !inputName.MatchString(name) {
			v.errorf(ip, "invalid input name %q: use letters, digits, '_' and '-', so that {{input.NAME}} can refer to it", name)
		}
		v.input(ip, ev.Inputs[name])
	}

	// Stay quiet about what is missing from strings that are broken or
	// absent: they have their own errors.
	if v.isBad(path) || v.isBad(headers) || v.isBad(body) || ev.Body == "" {
		return
	}
	if !used.key && !idHeader && !ev.Safe {
		v.errorf(body, "event %q does not carry its event id: put {{key}} in its body where the handler reads the id, such as {\"id\":\"{{key}}\",…} (every redelivery of an event has the same id, which is how a handler de-duplicates), or set id_header to send it in a header", ev.Name)
	}
	if !used.marker {
		if ev.Safe {
			v.errorf(p, "safe event %q does not use {{marker}}: put {{marker}} in its body, so that a side effect it causes by mistake can be attributed to it (that is how safe.readonly finds one)", ev.Name)
		} else {
			v.errorf(p, "event %q does not use {{marker}}: put {{marker}} in its body where the handler passes it on to its downstream calls (a payment's description, an email's text), so that the fakes can attribute each side effect to the delivery that caused it", ev.Name)
		}
	}
}
