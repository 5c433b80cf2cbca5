package harness

import (
	"fmt"
	"strings"

	"github.com/idemcheck/idemcheck/internal/lazyregexp"
)

var placeholderRE = lazyregexp.New(`\{\{\s*([A-Za-z0-9_.\-]+)\s*\}\}`)

// Expand replaces every {{name}} in s by vars[name]. A name missing from
// vars is an error, so a typo never reaches a target as a literal.
func Expand(s string, vars map[string]string) (string, error) {
	var missing []string
	out := placeholderRE.ReplaceAllStringFunc(s, func(m string) string {
		name := placeholderRE.FindStringSubmatch(m)[1]
		v, ok := vars[name]
		if !ok {
			missing = append(missing, name)
			return m
		}
		return v
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("unknown placeholder {{%s}} in %q", strings.Join(missing, "}}, {{"), s)
	}
	return out, nil
}

// SMTPFake is a fake that also speaks SMTP (the email fake).
type SMTPFake interface {
	SMTPAddr() string
}

// Vars returns the placeholders every adapter fills in from env:
// {{state_dir}}, and for each running fake {{fakes.NAME.url}} and, for one
// that speaks SMTP, {{fakes.NAME.smtp}}. An adapter adds {{port}} when it
// picks one, and may replace state_dir (a container sees its own path).
func (env *Env) Vars() map[string]string {
	vars := map[string]string{"state_dir": env.StateDir}
	for name, f := range env.Fakes {
		vars["fakes."+name+".url"] = f.URL()
		if s, ok := f.(SMTPFake); ok {
			vars["fakes."+name+".smtp"] = s.SMTPAddr()
		}
	}
	for name, d := range env.Deps {
		vars["deps."+name+".url"] = d.URL
		vars["deps."+name+".addr"] = d.Addr()
		vars["deps."+name+".direct_url"] = d.DirectURL
	}
	return vars
}
