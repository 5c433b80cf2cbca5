package config

import (
	"reflect"
	"slices"
	"strings"

	"github.com/idemcheck/idemcheck/config/section"
)

// MinSecretLength is the length below which a value is not redacted: a
// value of one to three characters is no secret, and replacing it
// wherever it appears would garble every report.
const MinSecretLength = 4

// Secrets returns every value that reports and logs must not show: the
// values of the {{env.NAME}} variables the file uses, the secrets it
// holds (of type Secret, such as a webhook signing secret), and the
// values written in the headers that carry credentials (see
// SecretHeader), with the credential alone when the value starts with a
// scheme ("Bearer …"). Values shorter than MinSecretLength are left out.
// The result is sorted, without duplicates.
func (f *File) Secrets() []string {
	var out []string
	add := func(s string) {
		if len(s) >= MinSecretLength {
			out = append(out, s)
		}
	}
	for _, x := range f.env {
		add(x)
	}
	for _, t := range f.Targets {
		keyHeader, _ := valueOf(t, "key_header").(string)
		secrets(reflect.ValueOf(t), func(name string, v reflect.Value) {
			switch {
			case v.Type() == reflect.TypeFor[section.Secret]():
				add(v.String())
			case name == "headers" && v.Type() == reflect.TypeFor[map[string]string]():
				for _, h := range v.MapKeys() {
					x := v.MapIndex(h).String()
					if !SecretHeader(h.String()) || strings.EqualFold(h.String(), keyHeader) || strings.Contains(x, "{{") {
						continue
					}
					add(x)
					if _, cred, ok := strings.Cut(strings.TrimSpace(x), " "); ok {
						add(strings.TrimSpace(cred))
					}
				}
			}
		})
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// EnvSettings returns the variables the file sets in a started process's
// environment with a value written as is (an env: or start.env entry
// without a placeholder), as NAME=value: the reports treat them as
// idemcheck's own environment is treated (reports.EnvSecrets), so a
// token written there stays out of every report unless its name is
// marked safe.
func (f *File) EnvSettings() []string {
	var out []string
	for _, t := range f.Targets {
		secrets(reflect.ValueOf(t), func(name string, v reflect.Value) {
			if name != "env" || v.Type() != reflect.TypeFor[map[string]string]() {
				return
			}
			for _, k := range v.MapKeys() {
				if x := v.MapIndex(k).String(); !strings.Contains(x, "{{") {
					out = append(out, k.String()+"="+x)
				}
			}
		})
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// secrets calls found with every field of v, by its YAML name, at any
// depth: a target's secrets and headers may be anywhere in its kind's
// struct.
func secrets(v reflect.Value, found func(name string, v reflect.Value)) {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			sf := t.Field(i)
			if !sf.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(sf.Tag.Get("yaml"), ",")
			found(name, v.Field(i))
			secrets(v.Field(i), found)
		}
	case reflect.Slice:
		for i := range v.Len() {
			secrets(v.Index(i), found)
		}
	case reflect.Map:
		if v.Type().Elem().Kind() != reflect.String {
			for _, k := range v.MapKeys() {
				secrets(v.MapIndex(k), found)
			}
		}
	}
}

// valueOf returns the value of the field that t's section calls name,
// at its top level, or nil.
func valueOf(t Target, name string) any {
	var out any
	v := reflect.ValueOf(t).Elem()
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		for i := range v.NumField() {
			sf := v.Type().Field(i)
			tag, opts, _ := strings.Cut(sf.Tag.Get("yaml"), ",")
			switch {
			case sf.Anonymous && strings.Contains(opts, "inline"):
				walk(v.Field(i))
			case tag == name:
				out = v.Field(i).Interface()
			}
		}
	}
	walk(v)
	return out
}

// SecretHeader says whether a header carries a credential, by its name:
// Authorization, Proxy-Authorization, Cookie, and names that end in
// -Token, -Key, -Secret or -Password, or contain ApiKey, such as
// X-Api-Key. An idempotency key header (Idempotency-Key, or the target's
// key_header) is not one: a key is no secret.
func SecretHeader(name string) bool {
	n := strings.ToLower(name)
	switch {
	case strings.Contains(n, "idempotency"):
		return false
	case n == "authorization", n == "proxy-authorization", n == "cookie":
		return true
	case strings.Contains(n, "apikey"), strings.Contains(n, "api-key"), strings.Contains(n, "api_key"):
		return true
	}
	for _, suffix := range []string{"-token", "_token", "-key", "_key", "-secret", "_secret", "-password", "_password"} {
		if strings.HasSuffix(n, suffix) {
			return true
		}
	}
	return false
}
