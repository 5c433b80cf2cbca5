package container

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/ory/dockertest/v3"
	dc "github.com/ory/dockertest/v3/docker"
)

// BinaryPath is where Build puts the binary in the image.
const BinaryPath = "/bin/target"

// BuildLabel is the image label that holds the digest of what the image was
// built from (the binary and the Dockerfile), so Build can tell an
// up-to-date image from a stale one.
const BuildLabel = "idemcheck.build"

// buildTail is how much of the engine's build output an error shows.
const buildTail = 2048

// Image says how to build a target image FROM scratch.
type Image struct {
	// Name and Tag name the image (Tag defaults to "latest").
	Name, Tag string
	// Binary is the path of a static Linux binary (e.g. built with
	// CGO_ENABLED=0 GOOS=linux); it is the image's only file, at BinaryPath.
	Binary string
	// Entrypoint defaults to [BinaryPath].
	Entrypoint []string
	// Force rebuilds the image, without the engine's build cache, even when
	// an up-to-date one exists.
	Force bool
}

// Ref returns "name:tag", what Launch.Image takes.
func (img Image) Ref() string {
	tag := img.Tag
	if tag == "" {
		tag = "latest"
	}
	return img.Name + ":" + tag
}

// Build builds img FROM scratch in the pool's engine, from a build context
// that holds only the binary:
//
//	FROM scratch
//	COPY bin /bin/target
//	ENTRYPOINT ["/bin/target"]
//
// It is idempotent: an image of that name built from the same binary and
// entrypoint (BuildLabel) is kept unless img.Force. An image the name
// held that Build made from another binary is removed once the name has
// moved, unless a container or another name uses it. Nothing is pulled.
func Build(ctx context.Context, pool *dockertest.Pool, img Image) error {
	_, err := build(ctx, pool, img)
	return err
}

// build is Build, and returns the id of the image it built or kept: the
// one to run, whatever the name holds later (another build of the same
// name, from another binary, may move it on the same engine).
func build(ctx context.Context, pool *dockertest.Pool, img Image) (string, error) {
	if img.Name == "" || img.Binary == "" {
		return "", fmt.Errorf("container: image %q: Name and Binary are required", img.Ref())
	}
	bin, err := os.ReadFile(img.Binary)
	if err != nil {
		return "", fmt.Errorf("container: image %s: read the binary: %w", img.Ref(), err)
	}
	if err := checkStatic(bin); err != nil {
		return "", fmt.Errorf("container: image %s: %s %w", img.Ref(), img.Binary, err)
	}
	entry := img.Entrypoint
	if len(entry) == 0 {
		entry = []string{BinaryPath}
	}
	ej, err := json.Marshal(entry)
	if err != nil {
		return "", fmt.Errorf("container: image %s: entrypoint: %w", img.Ref(), err)
	}
	dockerfile := "FROM scratch\nCOPY bin " + BinaryPath + "\nENTRYPOINT " + string(ej) + "\n"
	sum := sha256.New()
	sum.Write([]byte(dockerfile))
	sum.Write(bin)
	digest := hex.EncodeToString(sum.Sum(nil))
	dockerfile += "LABEL " + BuildLabel + "=" + digest + "\n"

	if err := ping(ctx, pool); err != nil {
		return "", err
	}
	// superseded is the image the name held, one that Build made: once
	// the name has moved to the new one, it is removed if no name holds it.
	superseded := ""
	got, err := pool.Client.InspectImage(img.Ref())
	switch {
	case err == nil && got.Config != nil && got.Config.Labels[BuildLabel] == digest && !img.Force:
		return got.ID, nil
	case err == nil && got.Config != nil && got.Config.Labels[BuildLabel] != "":
		superseded = got.ID // another binary's, or this one's rebuilt by force
	case err != nil && !errors.Is(err, dc.ErrNoSuchImage):
		return "", fmt.Errorf("container: image %s: inspect: %w", img.Ref(), err)
	}

	tarball, err := buildContext(dockerfile, bin)
	if err != nil {
		return "", fmt.Errorf("container: image %s: build context: %w", img.Ref(), err)
	}
	var out bytes.Buffer
	err = pool.Client.BuildImage(dc.BuildImageOptions{
		Name:                img.Ref(),
		InputStream:         tarball,
		OutputStream:        &out,
		NoCache:             img.Force,
		RmTmpContainer:      true,
		ForceRmTmpContainer: true,
		Context:             ctx,
	})
	if err != nil {
		msg := out.String()
		if len(msg) > buildTail {
			msg = "…" + msg[len(msg)-buildTail:]
		}
		return "", fmt.Errorf("container: image %s: docker build: %w; build output:\n%s", img.Ref(), err, strings.TrimSpace(msg))
	}
	built, err := pool.Client.InspectImage(img.Ref())
	switch {
	case err != nil:
		return "", fmt.Errorf("container: image %s: inspect after the build: %w", img.Ref(), err)
	case built.Config == nil || built.Config.Labels[BuildLabel] != digest:
		return "", fmt.Errorf("container: image %s: another build of that name on this engine, from another binary, replaced it as it was made: give the image a name of its own", img.Ref())
	}
	if superseded != "" {
		// A build that gave the same image (the engine's cache) moved
		// nothing. Left untagged, it would pile up with every new binary. Only
		// when no name holds it now (removing an image by its id would
		// take its last name away), and not forced: one a container
		// still uses stays.
		if old, err := pool.Client.InspectImage(superseded); err == nil && old.ID != "" && !slices.ContainsFunc(old.RepoTags, func(t string) bool { return t != "<none>:<none>" }) {
			_ = pool.Client.RemoveImageExtended(superseded, dc.RemoveImageOptions{Context: ctx})
		}
	}
	return built.ID, nil
}

// buildContext is the tar the engine builds from: the Dockerfile and the
// binary, nothing else.
func buildContext(dockerfile string, bin []byte) (*bytes.Buffer, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	files := []struct {
		name string
		mode int64
		data []byte
	}{
		{"Dockerfile", 0o644, []byte(dockerfile)},
		{"bin", 0o755, bin},
	}
	for _, f := range files {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(f.data)), Typeflag: tar.TypeReg}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, err
		}
	}
	return &buf, tw.Close()
}

// checkStatic rejects what cannot run alone in an empty image: a file that
// is not a Linux executable, or one that needs a dynamic loader (libc).
func checkStatic(bin []byte) error {
	f, err := elf.NewFile(bytes.NewReader(bin))
	if err != nil {
		return fmt.Errorf("is not a Linux executable (%v); build it with GOOS=linux", err)
	}
	defer f.Close()
	if f.Type != elf.ET_EXEC && f.Type != elf.ET_DYN {
		return fmt.Errorf("is an ELF %v, not an executable", f.Type)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return errors.New("is dynamically linked: a FROM scratch image has no libc or loader; build it static (for Go: CGO_ENABLED=0)")
		}
	}
	return nil
}
