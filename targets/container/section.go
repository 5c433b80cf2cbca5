package container

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/idemcheck/idemcheck/config/schema"
	"github.com/idemcheck/idemcheck/config/section"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/internal/lazyregexp"
	httptarget "github.com/idemcheck/idemcheck/targets/http"
	"github.com/idemcheck/idemcheck/targets/http/httpconfig"
)

// ConfigKind describes container targets to the configuration file.
var ConfigKind = section.Kind{
	Name: Kind,
	Doc:  "a server in a Docker container, from an image or built from a static binary",
	New:  func() section.Target { return &Section{} },
	Hints: map[string]string{
		"command":      "a container's arguments go in cmd; its program is the image's entrypoint",
		"start":        "a container target is started from image or build, with cmd, env and ready",
		"events":       "a container target lists operations",
		"allow_remote": "a container target uses the host's network and is always reached on loopback",
	},
}

// Defaults of a container target.
const (
	// DefaultURL is a container target's default URL: the container uses
	// the host's network and listens on loopback.
	DefaultURL = "http://127.0.0.1:{{port}}"
	// DefaultImagePrefix starts the default name of a built image, so
	// that it cannot replace an image of the user's own.
	DefaultImagePrefix = "idemcheck-"
)

// BinaryTag is the default tag of an image built from the binary at
// path: "b" and the first 12 hex digits of the SHA-256 of its absolute
// path. A binary rebuilt in place keeps its tag (Build moves it to the
// new image, and removes the old one); another project's binary, at
// another path, gets another.
func BinaryTag(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	sum := sha256.Sum256([]byte(path))
	return "b" + hex.EncodeToString(sum[:6])
}

// Section is a container target's section of the configuration file. Its
// url (DefaultURL when left out; always loopback), key_header, effect,
// dry_run, operations, callers and profile are an http target's, and so
// are its replicas, containers here.
type Section struct {
	section.Common    `yaml:",inline"`
	httpconfig.Fields `yaml:",inline"`
	// Image is an image that exists in the Docker engine, such as
	// "shop:1.4": nothing is pulled. Exactly one of Image and Build is set.
	Image string `yaml:"image,omitempty"`
	// Build builds the image FROM scratch from a static Linux binary when
	// the target starts (kept if already built from the same binary).
	Build *BuildSection `yaml:"build,omitempty"`
	// Cmd is given to the image's entrypoint. It may use {{port}},
	// {{state_dir}} (the state directory, mounted at /state in the
	// container), {{replica}} (which of the replicas, from 0), a fake's
	// {{fakes.NAME.url}} and {{fakes.NAME.smtp}}, and a dependency's
	// {{deps.NAME.url}}, as Env may.
	Cmd []string `yaml:"cmd,omitempty,flow"`
	// Env holds variables added to the container's environment; values
	// may use the placeholders Cmd may, and {{env.NAME}}, a variable of
	// idemcheck's own environment.
	Env map[string]string `yaml:"env,omitempty"`
	// Port is the port the image always listens on ("8080" or
	// "8080/tcp"), for an image that cannot be told; empty (the usual)
	// means {{port}}, a free port picked at each start, which Cmd or Env
	// must pass on.
	Port string `yaml:"port,omitempty"`
	// User runs the server as "uid:gid" or a user name the image knows.
	// Default: idemcheck's own uid and gid.
	User string `yaml:"user,omitempty"`
	// Ready is how the harness knows that the container is up: a GET
	// under the target's URL that must answer 2xx.
	Ready *section.Ready `yaml:"ready,omitempty"`
	// Replicas is how many containers of the image idemcheck runs, as an
	// http target's replicas: each on a {{port}} of its own ({{replica}}
	// and IDEMCHECK_REPLICA are 0, 1, …), all with one state directory
	// and the same fakes. 0 or 1 means one.
	Replicas int `yaml:"replicas,omitempty"`
}

// BuildSection says how to build a container target's image FROM
// scratch.
type BuildSection struct {
	// Binary is the path of a static Linux binary (for Go: CGO_ENABLED=0
	// GOOS=linux go build), relative to the configuration file's
	// directory; it is the image's only file and its entrypoint. Required.
	Binary string `yaml:"binary"`
	// Name is the image's name. Default "idemcheck-" and the target's name.
	Name string `yaml:"name,omitempty"`
	// Tag is the image's tag. Default: "b" and 12 hex digits of the
	// binary's absolute path (BinaryTag), so that two projects on one
	// Docker engine whose targets share a name do not share an image.
	Tag string `yaml:"tag,omitempty"`
}

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

var imageName = lazyregexp.New(`^` + refName + `$`)

// Rules implements schema.Ruler.
func (Section) Rules(r *schema.Rules) {
	r.Field("image").Pattern(`^(`+refName+`(?::`+refTag+`)?(?:@`+refDigest+`)?)?$`, schema.Sprintf(`invalid image reference %q: write NAME:TAG, such as "shop:1.4", with the name in lower case`))
	r.Field("env").Keys().Pattern(section.EnvName, section.BadEnvName)
	r.Field("user").Pattern(`^[A-Za-z0-9_.-]+(?::[A-Za-z0-9_.-]+)?$`, schema.Sprintf(`invalid user %q: write uid:gid, such as "1000:1000", or a user name the image knows`))
	r.Field("replicas").Range(0, httptarget.MaxReplicas, schema.Sprintf(fmt.Sprintf("%%v replicas is out of range; want 1 to %d", httptarget.MaxReplicas)))
}

// Rules implements schema.Ruler.
func (BuildSection) Rules(r *schema.Rules) {
	r.Field("binary").Required("the path of a static Linux binary to build the image from (for Go: CGO_ENABLED=0 GOOS=linux go build -o ./shop ./cmd/shop)")
	r.Field("name").Pattern(`^`+refName+`$`, schema.Sprintf("invalid image name %q: use lower-case letters and digits, separated by '.', '_', '-' or '/'"))
	r.Field("tag").Pattern(`^`+refTag+`$`, schema.Sprintf("invalid image tag %q: use letters, digits, '_', '.' and '-', at most 128, not starting with '.' or '-'"))
}

// TargetURL implements section.Reached.
func (s *Section) TargetURL() string {
	if s.URL == "" {
		return DefaultURL
	}
	return s.URL
}

// Check implements section.Target: exactly one of an image and a build,
// and a way for the server to know where to listen.
func (s *Section) Check(c *section.Checker) {
	s.Common.Check(c, s)
	section.CheckURL(c.Field("url"), s.URL, section.URLPolicy{Started: true,
		LoopbackOnly: "a container target uses the host's network and listens on loopback; write 127.0.0.1 (the default url is \"" + DefaultURL + "\")"})
	s.Fields.Check(c)
	image, build := c.Field("image"), c.Field("build")
	switch {
	case s.Image != "" && s.Build != nil:
		build.Errorf("set image or build, not both: image runs an image the Docker engine already has, build makes one from a static binary")
	case s.Image == "" && s.Build == nil && !image.Refused() && !build.Refused():
		image.Missing("set image (an image the Docker engine has, such as \"shop:1.4\"; nothing is pulled) or build: {binary: ./shop} (an image made FROM scratch from a static Linux binary)")
	}
	if b := s.Build; b != nil && b.Name == "" && s.Name != "" && !imageName.MatchString(DefaultImagePrefix+s.Name) {
		build.Errorf("the default image name %q is not a valid image name: set name, such as name: %s", DefaultImagePrefix+s.Name, DefaultImagePrefix+"shop")
	}
	cmd, env := c.Field("cmd"), c.Field("env")
	usesPort := false
	for i, arg := range s.Cmd {
		usesPort = cmd.Index(i).TargetTemplate(arg) || usesPort
	}
	usesPort = section.CheckEnv(env, s.Env) || usesPort
	switch {
	case s.Port != "" && s.Replicas > 1:
		c.Field("replicas").Errorf("replicas need {{port}} in cmd or env, not a fixed port: the containers share the host's network, so each listens on a port of its own")
	case s.Port != "":
		if msg := checkPort(s.Port); msg != "" {
			c.Field("port").Errorf("%s", msg)
		}
	case !usesPort && !cmd.Refused() && !env.Refused():
		at := cmd
		if !cmd.Written() {
			at = c
		}
		at.Errorf("the container is not told where to listen: pass {{port}} in cmd or env, such as cmd: [--listen, \"127.0.0.1:{{port}}\"] (a free port, picked at each start; the container shares the host's network), or set port to the one the image always listens on")
	}
}

// checkPort returns what is wrong with a container's port, or "". The
// adapter takes "8080" or "8080/tcp".
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

// Defaults implements section.Target.
func (s *Section) Defaults() {
	s.Common.Defaults()
	s.Fields.Defaults()
	if s.URL == "" {
		s.URL = DefaultURL
	}
	if b := s.Build; b != nil {
		if b.Name == "" {
			b.Name = DefaultImagePrefix + s.Name
		}
	}
	if s.Ready == nil {
		s.Ready = &section.Ready{}
	}
	s.Ready.Defaults()
}

// Spec implements section.Target: the HTTP adapter in front of a
// container of the target's image, built first (once per run) when the
// target says how. A binary that is not there is reported before
// anything runs: a mistake in the file, not the target's.
func (s *Section) Spec(b *section.Builder) harness.Spec {
	l := Launch{Image: s.Image, Cmd: s.Cmd, Env: b.EnvMap(s.Env), Port: s.Port, User: s.User, Replicas: s.Replicas}
	if r := s.Ready; r != nil {
		l.ReadyPath, l.ReadyTimeout = r.Path, r.Timeout.Std()
	}
	if bs := s.Build; bs != nil {
		binary := b.File(bs.Binary)
		fi, err := os.Stat(binary)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			b.Errorf("build.binary", "the binary %q does not exist%s; build it first, e.g. CGO_ENABLED=0 GOOS=linux go build -o %s ./cmd/yourserver", bs.Binary, b.RelativeNote(bs.Binary), binary)
		case err != nil:
			b.Errorf("build.binary", "cannot read the binary %q: %v", bs.Binary, err)
		case fi.IsDir():
			b.Errorf("build.binary", "%q is a directory; give the path of a static Linux binary", bs.Binary)
		}
		tag := bs.Tag
		if tag == "" {
			tag = BinaryTag(binary)
		}
		l.Build = &Image{Name: bs.Name, Tag: tag, Binary: binary}
	}
	return Spec(s.Fields.Config(&s.Common, b), l, b.Fakes()...)
}

// Commands implements section.Commander: a container has no program of
// its own to check, only an environment.
func (s *Section) Commands() []section.Command {
	return []section.Command{{Env: s.Env}}
}
