package cpukernels

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Go's build cache keys a cgo package on the files of its own directory
// (its .go, .c and .h files, the flags, the compiler): a C file or header
// that the package pulls in from elsewhere, by a relative #include or a -I
// flag, can change without the package being rebuilt. So every C source
// and header a cgo package compiles lives in its directory, and these tests
// keep it so for every package of the module with import "C".

// TestCgoSourcesInPackageDir fails if a cgo package includes a file (a
// quoted #include in its .go preambles, .c or .h files) or names an include
// directory (-I, -iquote, -isystem, -idirafter, -include in #cgo flags, or
// ${SRCDIR} in any flag) outside its own directory.
func TestCgoSourcesInPackageDir(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found from the test's directory: %v", err)
	}
	dirs, err := cgoPackageDirs(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"cgo/cpukernels", "cgo/npushim"} {
		if !slices.Contains(dirs, filepath.Join(root, filepath.FromSlash(want))) {
			t.Errorf("%s is not found as a cgo package (found %q)", want, dirs)
		}
	}
	for _, dir := range dirs {
		problems, err := sourcesOutside(dir)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, dir)
		for _, p := range problems {
			t.Errorf("%s: %s", filepath.ToSlash(rel), p)
		}
	}
}

// TestCgoLayoutCheckCatches runs the check on the layout this package had
// before: a C file pulling sources in from ../../csrc and -I flags leaving
// the directory.
func TestCgoLayoutCheckCatches(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"a.go": "package a\n\n/*\n#cgo CFLAGS: -O3 -I${SRCDIR}/../../include -I ../x -Ilocal\n" +
			"#cgo linux LDFLAGS: -L${SRCDIR}/../lib -lm\n#include <stdint.h>\n#include \"mindtorch/cpu_kernels.h\"\n*/\n" +
			"import \"C\"\n",
		"b.go":      "package a\n\n// #include \"ok.h\"\nimport \"C\"\n",
		"kernels.c": "#include \"../../csrc/cpu/pool.c\"\n#  include \"ok.h\"\n",
		"ok.h":      "#include <math.h>\n#include \"local/deeper.h\"\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "local"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "local", "deeper.h"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	problems, err := sourcesOutside(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`a.go: #cgo flag -I ${SRCDIR}/../../include: outside the package directory`,
		`a.go: #cgo flag -I ../x: outside the package directory`,
		`a.go: #cgo flag ${SRCDIR}/../lib: outside the package directory`,
		`a.go: #include "mindtorch/cpu_kernels.h": not a file of the package directory`,
		`kernels.c: #include "../../csrc/cpu/pool.c": outside the package directory`,
	}
	if !slices.Equal(problems, want) {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(problems, "\n"), strings.Join(want, "\n"))
	}
}

// cgoPackageDirs lists the directories under root with a .go file that
// imports "C", skipping what the go command skips (testdata, names starting
// with . or _).
func cgoPackageDirs(root string) ([]string, error) {
	var dirs []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || slices.Contains(dirs, filepath.Dir(path)) {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return nil // the compiler reports it; a file being edited elsewhere
		}
		for _, is := range f.Imports {
			if is.Path.Value == `"C"` {
				dirs = append(dirs, filepath.Dir(path))
				break
			}
		}
		return nil
	})
	return dirs, err
}

var (
	quotedInclude = regexp.MustCompile(`^\s*#\s*include\s*"([^"]*)"`)
	cgoDirective  = regexp.MustCompile(`^\s*#cgo\s+([^:]*):(.*)$`)
)

// sourcesOutside returns what in the package directory dir reaches outside
// it: quoted #includes (resolved against dir, as the C compiler runs there
// with -I dir) that leave dir or name no file of it, and #cgo flags that
// name an include directory or a ${SRCDIR} path outside dir.
func sourcesOutside(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var problems []string
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() {
			continue
		}
		path := filepath.Join(dir, name)
		var lines []string
		switch filepath.Ext(name) {
		case ".go":
			if lines, err = cgoPreambleLines(path); err != nil {
				return nil, err
			}
		case ".c", ".h", ".cc", ".cpp", ".cxx", ".hh", ".hpp", ".hxx", ".S", ".m":
			if lines, err = fileLines(path); err != nil {
				return nil, err
			}
		default:
			continue
		}
		for _, line := range lines {
			if m := quotedInclude.FindStringSubmatch(line); m != nil {
				if p := checkInclude(dir, m[1]); p != "" {
					problems = append(problems, fmt.Sprintf("%s: #include %q: %s", name, m[1], p))
				}
			}
			if m := cgoDirective.FindStringSubmatch(line); m != nil {
				for _, p := range checkFlags(dir, strings.Fields(m[2])) {
					problems = append(problems, name+": "+p)
				}
			}
		}
	}
	return problems, nil
}

// cgoPreambleLines returns the lines of the preambles of import "C" in a Go
// file (the comment before the import, as cgo reads it).
func cgoPreambleLines(path string) ([]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly|parser.ParseComments)
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, decl := range f.Decls {
		d, ok := decl.(*ast.GenDecl)
		if !ok || d.Tok != token.IMPORT {
			continue
		}
		for _, spec := range d.Specs {
			s := spec.(*ast.ImportSpec)
			if s.Path.Value != `"C"` {
				continue
			}
			doc := s.Doc
			if doc == nil && len(d.Specs) == 1 {
				doc = d.Doc
			}
			if doc != nil {
				lines = append(lines, strings.Split(doc.Text(), "\n")...)
			}
		}
	}
	return lines, nil
}

func fileLines(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines, sc.Err()
}

// checkInclude says what is wrong with #include "name" in dir, or "".
func checkInclude(dir, name string) string {
	target := filepath.Join(dir, filepath.FromSlash(name))
	if filepath.IsAbs(name) || !inside(dir, target) {
		return "outside the package directory"
	}
	if st, err := os.Stat(target); err != nil || st.IsDir() {
		return "not a file of the package directory"
	}
	return ""
}

// checkFlags checks the flags of one #cgo line: the paths of the include
// flags, and every flag naming ${SRCDIR}, must stay inside dir. Relative
// paths are relative to dir, where the go command runs the C compiler.
func checkFlags(dir string, flags []string) []string {
	var problems []string
	bad := func(flag, path string) {
		p := path
		if flag != "" {
			p = flag + " " + path
		}
		problems = append(problems, fmt.Sprintf("#cgo flag %s: outside the package directory", p))
	}
	resolve := func(p string) string {
		p = strings.ReplaceAll(p, "${SRCDIR}", dir)
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		return p
	}
	includeFlags := []string{"-iquote", "-isystem", "-idirafter", "-include", "-I"}
	for i := 0; i < len(flags); i++ {
		f := flags[i]
		flag, path := "", ""
		for _, inc := range includeFlags {
			if f == inc && i+1 < len(flags) {
				flag, path = inc, flags[i+1]
				i++
				break
			}
			if strings.HasPrefix(f, inc) && len(f) > len(inc) {
				flag, path = inc, f[len(inc):]
				break
			}
		}
		switch {
		case flag != "":
			if !inside(dir, resolve(path)) {
				bad(flag, path)
			}
		case strings.Contains(f, "${SRCDIR}"):
			// A path glued to some other flag (-L${SRCDIR}/..., -Wl,...):
			// check the part from ${SRCDIR} on.
			path = f[strings.Index(f, "${SRCDIR}"):]
			if !inside(dir, resolve(path)) {
				bad("", path)
			}
		}
	}
	return problems
}

// inside reports whether path is dir or below it.
func inside(dir, path string) bool {
	rel, err := filepath.Rel(dir, filepath.Clean(path))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
