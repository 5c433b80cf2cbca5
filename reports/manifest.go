package reports

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// ManifestFile is the file WriteSet writes last in a report directory: it
// lists every file of the set, with its size and SHA-256. A reader trusts
// the files of a directory only as the manifest lists them: while a set is
// being replaced there is no manifest, and a set cut short (the process
// killed between two renames, leaving a new result.json beside an old
// report.json) has none, or one whose digests do not match.
const ManifestFile = "manifest.json"

// ManifestSchema names the manifest's format.
const ManifestSchema = "idemcheck.manifest/v1"

// Manifest is the content of ManifestFile.
type Manifest struct {
	Schema string `json:"schema"`
	// Written is when the set was complete.
	Written time.Time `json:"written"`
	// Files are the set's files, in the order they were written.
	Files []ManifestEntry `json:"files"`
}

// ManifestEntry is one file of a set.
type ManifestEntry struct {
	Name   string `json:"name"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// ErrNoManifest is returned by ReadManifest for a directory without one.
var ErrNoManifest = errors.New("no " + ManifestFile + ": the set is being replaced, was cut short, or was written by an idemcheck older than the manifest")

// ReadManifest reads dir's manifest.
func ReadManifest(dir string) (*Manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNoManifest
	}
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil || m.Schema != ManifestSchema {
		return nil, fmt.Errorf("%s is not an %s manifest", filepath.Join(dir, ManifestFile), ManifestSchema)
	}
	return &m, nil
}

// Check says whether data is the file called name that m lists.
func (m *Manifest) Check(name string, data []byte) error {
	for _, e := range m.Files {
		if e.Name != name {
			continue
		}
		sum := sha256.Sum256(data)
		if int64(len(data)) != e.Bytes || hex.EncodeToString(sum[:]) != e.SHA256 {
			return fmt.Errorf("%s is not the one %s lists (%d bytes, sha256 %.12s…): the run that wrote it was cut short while replacing the set, or another wrote it", name, ManifestFile, e.Bytes, e.SHA256)
		}
		return nil
	}
	return fmt.Errorf("%s does not list %s: it is not part of the set", ManifestFile, name)
}

// VerifySet checks that every file dir's manifest lists is there, whole,
// as listed, and returns the manifest.
func VerifySet(dir string) (*Manifest, error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, e := range m.Files {
		b, err := os.ReadFile(filepath.Join(dir, e.Name))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		errs = append(errs, m.Check(e.Name, b))
	}
	return m, errors.Join(errs...)
}

// hashWriter counts and hashes what passes through it.
type hashWriter struct {
	w io.Writer
	h hashState
	n int64
}

type hashState interface {
	io.Writer
	Sum([]byte) []byte
}

func newHashWriter(w io.Writer) *hashWriter { return &hashWriter{w: w, h: sha256.New()} }

func (hw *hashWriter) Write(p []byte) (int, error) {
	n, err := hw.w.Write(p)
	hw.h.Write(p[:n])
	hw.n += int64(n)
	return n, err
}

func (hw *hashWriter) entry(name string) ManifestEntry {
	return ManifestEntry{Name: name, Bytes: hw.n, SHA256: hex.EncodeToString(hw.h.Sum(nil))}
}
