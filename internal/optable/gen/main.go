// Command gen writes the files generated from the op table (package
// optable) into the repository: run it with `go generate ./internal/optable`
// or `make generate`. With -check it writes nothing and fails when a
// committed file differs from what it would write.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/mindtorch/mindtorch/internal/optable"
)

func main() {
	check := flag.Bool("check", false, "compare the committed files with the table instead of writing them")
	flag.Parse()
	_, self, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(self), "..", "..", "..")
	files, err := optable.Generate()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	stale := 0
	for _, f := range files {
		path := filepath.Join(root, f.Path)
		if *check {
			old, err := os.ReadFile(path)
			if err != nil || string(old) != string(f.Data) {
				fmt.Fprintln(os.Stderr, "gen: stale:", f.Path)
				stale++
			}
			continue
		}
		if err := os.WriteFile(path, f.Data, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
	}
	if stale > 0 {
		fmt.Fprintln(os.Stderr, "gen: run go generate ./internal/optable")
		os.Exit(1)
	}
}
