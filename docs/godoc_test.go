package docs_test

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// packageDoc reads the doc comments of the package in dir (its non-test
// files): the reference pages quote what the code says of itself.
func packageDoc(t *testing.T, dir string) *doc.Package {
	t.Helper()
	fset := token.NewFileSet()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	require.NoError(t, err)
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		require.NoError(t, err)
		f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
		require.NoError(t, err)
		files = append(files, f)
	}
	pkg, err := doc.NewFromFiles(fset, files, "github.com/idemcheck/idemcheck/"+filepath.Base(dir), doc.PreserveAST)
	require.NoError(t, err)
	return pkg
}

// typeDoc returns the doc comment of the named type, or "".
func typeDoc(pkg *doc.Package, name string) *doc.Type {
	for _, ty := range pkg.Types {
		if ty.Name == name {
			return ty
		}
	}
	return nil
}

// fieldDocs returns the doc comments of a struct type's fields, by field
// name.
func fieldDocs(ty *doc.Type) map[string]string {
	out := map[string]string{}
	if ty == nil {
		return out
	}
	for _, spec := range ty.Decl.Specs {
		ts, ok := spec.(*ast.TypeSpec)
		if !ok {
			continue
		}
		st, ok := ts.Type.(*ast.StructType)
		if !ok {
			continue
		}
		for _, f := range st.Fields.List {
			for _, n := range f.Names {
				out[n.Name] = oneLine(f.Doc.Text())
			}
		}
	}
	return out
}

// oneLine joins a comment's lines into one paragraph.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// docText is a type's doc comment as one paragraph, without Go's
// "Name is …" opening when the page names the thing already.
func docText(ty *doc.Type) string {
	if ty == nil {
		return ""
	}
	return oneLine(ty.Doc)
}
