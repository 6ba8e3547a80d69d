package badinput

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The packages whose public API the cases cover, by the name the cases
// give them, and their directories from here.
var coveredPackages = map[string]string{
	"torch":       "../../pkg/torch",
	"nn":          "../../pkg/nn",
	"optim":       "../../pkg/optim",
	"safetensors": "../../pkg/safetensors",
}

// exportedAPI parses a package's source (tests left out) and returns its
// exported functions that take a tensor, a list or map of tensors or an
// nn.Module, as "pkg.Func", and its exported types that have exported
// methods, as "pkg.Type".
func exportedAPI(t *testing.T, pkg, dir string) (funcs, types []string) {
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	seenType := map[string]bool{}
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || !fd.Name.IsExported() {
				continue
			}
			if fd.Recv != nil {
				if name := receiverName(fd.Recv.List[0].Type); ast.IsExported(name) && !seenType[name] {
					seenType[name] = true
					types = append(types, pkg+"."+name)
				}
				continue
			}
			for _, p := range fd.Type.Params.List {
				if takesTensors(pkg, p.Type) {
					funcs = append(funcs, pkg+"."+fd.Name.Name)
					break
				}
			}
		}
	}
	sort.Strings(funcs)
	sort.Strings(types)
	return funcs, types
}

// receiverName is the type name of a method's receiver: T in T, *T, T[X].
func receiverName(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// takesTensors reports whether a parameter type holds tensors: *Tensor,
// []*Tensor, ...*Tensor, map[K]*Tensor (torch.Tensor outside torch), or
// nn's Module.
func takesTensors(pkg string, e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.StarExpr:
		return isTensorName(pkg, x.X)
	case *ast.ArrayType:
		return takesTensors(pkg, x.Elt)
	case *ast.Ellipsis:
		return takesTensors(pkg, x.Elt)
	case *ast.MapType:
		return takesTensors(pkg, x.Value)
	case *ast.Ident:
		return pkg == "nn" && x.Name == "Module"
	case *ast.SelectorExpr:
		id, ok := x.X.(*ast.Ident)
		return ok && id.Name == "nn" && x.Sel.Name == "Module"
	}
	return false
}

func isTensorName(pkg string, e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.Ident:
		return pkg == "torch" && x.Name == "Tensor"
	case *ast.SelectorExpr:
		id, ok := x.X.(*ast.Ident)
		return ok && id.Name == "torch" && x.Sel.Name == "Tensor"
	}
	return false
}

// TestEveryTensorFunctionHasCases fails when an exported function that
// takes tensors is missing from tensorFuncs, or an exported type with
// methods from receivers: a new function or type must get its cases.
func TestEveryTensorFunctionHasCases(t *testing.T) {
	inTable := map[string]bool{}
	for _, f := range tensorFuncs() {
		inTable[f.label] = true
	}
	inReceivers := map[string]bool{}
	for _, r := range receivers() {
		inReceivers[r.name] = true
	}
	found := map[string]bool{}
	for pkg, dir := range coveredPackages {
		funcs, types := exportedAPI(t, pkg, dir)
		if len(funcs) == 0 {
			t.Errorf("found no function taking tensors in %s: is %s its source?", pkg, dir)
		}
		for _, f := range funcs {
			found[f] = true
			if !inTable[f] {
				t.Errorf("%s takes a tensor but has no cases: add it to tensorFuncs (funcs_test.go)", f)
			}
		}
		for _, typ := range types {
			if !inReceivers[typ] && !ignoredTypes[typ] {
				t.Errorf("%s has exported methods but no cases: add it to receivers (methods_test.go)", typ)
			}
		}
	}
	for name := range inTable {
		if !found[name] {
			t.Errorf("tensorFuncs lists %s, which takes no tensor or no longer exists", name)
		}
	}
}
