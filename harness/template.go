package harness

import (
	"fmt"
	"strings"
)

// Expand replaces every {{name}} in s by vars[name]: a name of letters,
// digits, '_', '.' and '-', with blanks allowed around it inside the
// braces. A name missing from vars is an error, so a typo never reaches a
// target as a literal.
func Expand(s string, vars map[string]string) (string, error) {
	i := strings.Index(s, "{{")
	if i < 0 {
		return s, nil
	}
	var (
		b       strings.Builder
		missing []string
		done    int // s[:done] is in b
	)
	for i >= 0 {
		name, end := placeholderAt(s, i)
		if end < 0 {
			// Not a placeholder here; one may start a brace later.
			i = nextPlaceholder(s, i+1)
			continue
		}
		v, ok := vars[name]
		if !ok {
			missing = append(missing, name)
			v = s[i:end]
		}
		if b.Len() == 0 {
			b.Grow(len(s) + len(v))
		}
		b.WriteString(s[done:i])
		b.WriteString(v)
		done = end
		i = nextPlaceholder(s, end)
	}
	if len(missing) > 0 {
		return "", fmt.Errorf("unknown placeholder {{%s}} in %q", strings.Join(missing, "}}, {{"), s)
	}
	if done == 0 {
		return s, nil
	}
	b.WriteString(s[done:])
	return b.String(), nil
}

// nextPlaceholder is the index of the next "{{" in s from i, or -1.
func nextPlaceholder(s string, i int) int {
	j := strings.Index(s[i:], "{{")
	if j < 0 {
		return -1
	}
	return i + j
}

// placeholderAt reads the placeholder that starts at s[i] ("{{"): its
// name and the index after its "}}", or end -1 when there is none.
func placeholderAt(s string, i int) (name string, end int) {
	j := skipBlanks(s, i+2)
	k := j
	for k < len(s) && isNameByte(s[k]) {
		k++
	}
	if k == j {
		return "", -1
	}
	l := skipBlanks(s, k)
	if !strings.HasPrefix(s[l:], "}}") {
		return "", -1
	}
	return s[j:k], l + 2
}

func skipBlanks(s string, i int) int {
	for i < len(s) {
		switch s[i] {
		case ' ', '\t', '\n', '\f', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

func isNameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-'
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
