package torch_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// pendingImports are the backend imports of pkg/torch that remain, by
// file. It is empty, and must stay so.
var pendingImports = map[string]string{}

// TestNoBackendImports fails if pkg/torch imports a backend package
// (pkg/backends/cpu, npu, meta): it talks to the backends through
// pkg/dispatch and the interfaces of pkg/backends/kernel only.
func TestNoBackendImports(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ast, err := parser.ParseFile(token.NewFileSet(), f, src, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range ast.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			i := strings.Index(path, "/pkg/backends/")
			if i < 0 || strings.HasSuffix(path, "/pkg/backends/kernel") {
				continue
			}
			if pendingImports[f] == path[i+1:] {
				seen[f] = true
				continue
			}
			t.Errorf("%s imports the backend %s", f, path)
		}
	}
	for f := range pendingImports {
		if !seen[f] {
			t.Errorf("%s no longer imports %s: remove it from pendingImports", f, pendingImports[f])
		}
	}
}
