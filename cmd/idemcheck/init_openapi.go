package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/idemcheck/idemcheck/openapi"
	"github.com/idemcheck/idemcheck/reports"
)

// initOpenAPI writes the starter configuration of an HTTP API from its
// OpenAPI description (idemcheck init --openapi SPEC).
func initOpenAPI(ctx context.Context, spec, name, out string, rest []string, stdout, stderr io.Writer) error {
	if len(rest) > 0 {
		return usageErr("init --openapi: unexpected arguments %q: the configuration comes from the spec alone", rest)
	}
	doc, err := openapi.Load(ctx, spec)
	if err != nil {
		return &exitError{code: exitUsage, err: fmt.Errorf("init: %w", err), hint: "give an OpenAPI 3.0 or 3.1 description, in YAML or JSON"}
	}
	c := openapi.Generate(doc, openapi.Options{Name: name, Source: filepath.Base(spec)})
	if out == "" {
		_, err := io.WriteString(stdout, c.YAML)
		return err
	}
	if err := writeNew(out, c.YAML); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "idemcheck init: wrote %s with %s", out, plural(c.Operations, "operation", "operations"))
	if len(c.TODOs) == 0 {
		fmt.Fprintf(stderr, "; run: idemcheck run -c %s\n", reports.ShellQuote(out))
		return nil
	}
	fmt.Fprintf(stderr, "; fill in these TODOs, then run: idemcheck run -c %s\n  %s\n", reports.ShellQuote(out), strings.Join(c.TODOs, "\n  "))
	return nil
}
