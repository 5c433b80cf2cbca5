package config

import (
	"regexp"
	"strconv"
	"strings"
)

// Image references as the Docker engine reads them (the grammar of
// github.com/distribution/reference, without its length limits):
// [DOMAIN[:PORT]/]NAME[/NAME…][:TAG][@DIGEST], names in lower case.
const (
	refDomainPart = `(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])`
	refDomain     = refDomainPart + `(?:\.` + refDomainPart + `)*(?::[0-9]+)?`
	refPart       = `[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*`
	refName       = `(?:` + refDomain + `/)?` + refPart + `(?:/` + refPart + `)*`
	refTag        = `[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}`
	refDigest     = `[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}`
)

var (
	imageRef  = regexp.MustCompile(`^` + refName + `(?::` + refTag + `)?(?:@` + refDigest + `)?$`)
	imageName = regexp.MustCompile(`^` + refName + `$`)
	imageTag  = regexp.MustCompile(`^` + refTag + `$`)
	userSpec  = regexp.MustCompile(`^[A-Za-z0-9_.-]+(?::[A-Za-z0-9_.-]+)?$`)
)

// containerTarget checks what a container target needs: exactly one of an
// image and a build, and a way for the server to know where to listen.
// Its url and operations are an http target's, checked by target.
func (v *validator) containerTarget(p string, t *Target, fakes map[string]bool) {
	v.url(p, t, fakes)
	image, build := pathField(p, "image"), pathField(p, "build")
	switch {
	case t.Image != "" && t.Build != nil:
		v.errorf(build, "set image or build, not both: image runs an image the Docker engine already has, build makes one from a static binary")
	case t.Image == "" && t.Build == nil && !v.isBad(image) && !v.isBad(build):
		v.missing(image, "set image (an image the Docker engine has, such as \"shop:1.4\"; nothing is pulled) or build: {binary: ./shop} (an image made FROM scratch from a static Linux binary)")
	}
	if t.Image != "" && !imageRef.MatchString(t.Image) {
		v.errorf(image, "invalid image reference %q: write NAME:TAG, such as \"shop:1.4\", with the name in lower case", t.Image)
	}
	if b := t.Build; b != nil {
		v.build(build, b, t.Name)
	}

	usesPort := false
	cmd := pathField(p, "cmd")
	for i, arg := range t.Cmd {
		usesPort = v.targetTemplate(pathIndex(cmd, i), arg, fakes) || usesPort
	}
	env := pathField(p, "env")
	for _, k := range sortedKeys(t.Env) {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			v.errorf(pathKey(env, k), "invalid environment variable name %q", k)
		}
		usesPort = v.targetTemplate(pathKey(env, k), v.envRefs(pathKey(env, k), t.Env[k]), fakes) || usesPort
	}
	port := pathField(p, "port")
	if t.Port != "" {
		if msg := checkPort(t.Port); msg != "" {
			v.errorf(port, "%s", msg)
		}
	} else if !usesPort && !v.isBad(cmd) && !v.isBad(env) {
		at := cmd
		if !v.written(cmd) {
			at = p
		}
		v.errorf(at, "the container is not told where to listen: pass {{port}} in cmd or env, such as cmd: [--listen, \"127.0.0.1:{{port}}\"] (a free port, picked at each start; the container shares the host's network), or set port to the one the image always listens on")
	}
	if t.User != "" && !userSpec.MatchString(t.User) {
		v.errorf(pathField(p, "user"), "invalid user %q: write uid:gid, such as \"1000:1000\", or a user name the image knows", t.User)
	}
	if r := t.Ready; r != nil {
		ready := pathField(p, "ready")
		if r.Path != "" && !strings.HasPrefix(r.Path, "/") {
			v.errorf(pathField(ready, "path"), "must start with \"/\", got %q", r.Path)
		}
		if r.Timeout < 0 {
			v.errorf(pathField(ready, "timeout"), "must not be negative, got %s", r.Timeout)
		}
	}
}

// build checks how a container target's image is built. target is the
// target's name, from which the image's default name is made.
func (v *validator) build(p string, b *Build, target string) {
	if strings.TrimSpace(b.Binary) == "" {
		v.missing(pathField(p, "binary"), "the path of a static Linux binary to build the image from (for Go: CGO_ENABLED=0 GOOS=linux go build -o ./shop ./cmd/shop)")
	}
	switch name := DefaultImagePrefix + target; {
	case b.Name != "" && !imageName.MatchString(b.Name):
		v.errorf(pathField(p, "name"), "invalid image name %q: use lower-case letters and digits, separated by '.', '_', '-' or '/'", b.Name)
	case b.Name == "" && target != "" && !imageName.MatchString(name):
		v.errorf(p, "the default image name %q is not a valid image name: set name, such as name: %s", name, DefaultImagePrefix+"shop")
	}
	if b.Tag != "" && !imageTag.MatchString(b.Tag) {
		v.errorf(pathField(p, "tag"), "invalid image tag %q: use letters, digits, '_', '.' and '-', at most 128, not starting with '.' or '-'", b.Tag)
	}
}

// checkPort returns what is wrong with a container's port, or "". The
// container adapter takes "8080" or "8080/tcp".
func checkPort(p string) string {
	num, proto, _ := strings.Cut(p, "/")
	if proto != "" && proto != "tcp" {
		return "port " + strconv.Quote(p) + " is not TCP: write a port number such as 8080, or \"8080/tcp\""
	}
	if n, err := strconv.Atoi(num); err != nil || n < 1 || n > 65535 {
		return "port " + strconv.Quote(p) + " is not a port number: write 1 to 65535, such as 8080 or \"8080/tcp\""
	}
	return ""
}
