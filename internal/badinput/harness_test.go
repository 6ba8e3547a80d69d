// Package badinput checks issue 17's rule: no public call of the library
// panics or crashes on bad input (a nil *Tensor, a bad option, an absurd
// value); it returns an error, or PyTorch's result where PyTorch accepts
// the input.
//
// The cases run in child processes (this test binary run again with
// -test.run=^TestBadInputChild$), so that a crash in C code fails its case
// instead of the whole test. A child runs a batch of cases, recovers each
// case's panic and prints one line per case; when a child dies, the parent
// runs the case it died in alone, to name it, and goes on with the rest.
package badinput

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// A badCase is one call with bad input.
type badCase struct {
	name string
	run  func() outcome
}

// outcome is what a case's call did, short of panicking.
type outcome struct {
	err  error  // the error the call returned: the expected answer
	fail string // why the call's answer is wrong (a silent success), if it is
	note string // the answer, when it was accepted without an error
}

// Case results as the child prints them, one line per case.
const (
	statusOK    = "ok"    // accepted without an error (see the note)
	statusError = "error" // the call returned an error: the expected answer
	statusFail  = "FAIL"  // a silent success where PyTorch fails
	statusPanic = "PANIC" // the call panicked
	statusCrash = "CRASH" // the child process died in the case
)

// linePrefix marks the child's result lines among the test binary's output.
const linePrefix = "badinput: "

// childEnv names the file of case names a child runs; dirEnv the
// directory its cases may write files in (the parent removes it).
const (
	childEnv = "MINDTORCH_BADINPUT_CASES"
	dirEnv   = "MINDTORCH_BADINPUT_DIR"
)

// workDir is the directory the cases of this process write files in.
var workDir string

// childTimeout bounds one child process: a case that hangs (a lock left
// held by a panic, a kernel that never returns) fails instead of hanging.
const childTimeout = 60 * time.Second

// result is the parent's record of one case.
type result struct {
	status, msg string
}

// allCases lists every case, sorted by name; names are unique.
func allCases(t testing.TB) []badCase {
	var cs []badCase
	cs = append(cs, methodCases()...)
	cs = append(cs, funcCases()...)
	cs = append(cs, specificCases()...)
	sort.Slice(cs, func(i, j int) bool { return cs[i].name < cs[j].name })
	for i := 1; i < len(cs); i++ {
		if cs[i].name == cs[i-1].name {
			t.Fatalf("two cases are named %s", cs[i].name)
		}
	}
	return cs
}

// TestBadInputChild runs the cases named in the file $MINDTORCH_BADINPUT_CASES
// and prints a result line for each; without it (a normal test run) it
// does nothing.
func TestBadInputChild(t *testing.T) {
	list := os.Getenv(childEnv)
	if list == "" {
		return
	}
	if workDir = os.Getenv(dirEnv); workDir == "" {
		workDir = t.TempDir()
	}
	data, err := os.ReadFile(list)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]badCase{}
	for _, c := range allCases(t) {
		byName[c.name] = c
	}
	for _, name := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		c, ok := byName[name]
		if !ok {
			t.Fatalf("no case %q", name)
		}
		status, msg := runCase(c)
		fmt.Fprintf(os.Stdout, "%s%s %s: %s\n", linePrefix, status, name, oneLine(msg))
	}
}

// runCase runs one case in this process, recovering its panic.
func runCase(c badCase) (status, msg string) {
	defer func() {
		if r := recover(); r != nil {
			status, msg = statusPanic, fmt.Sprintf("%v at %s", r, panicSite(debug.Stack()))
		}
	}()
	o := c.run()
	var oe *torch.Error
	switch {
	case o.fail != "":
		return statusFail, o.fail
	case o.err != nil && errors.As(o.err, &oe) && oe.Op == "": // every error names its op
		return statusFail, "the error names no op: " + o.err.Error()
	case o.err != nil:
		return statusError, o.err.Error()
	}
	return statusOK, o.note
}

// panicSite is the first frame of the library below the panic in a stack
// trace: file:line relative to the module, and the function.
func panicSite(stack []byte) string {
	lines := strings.Split(string(stack), "\n")
	seenPanic := false
	for i := 0; i+1 < len(lines); i++ {
		fn := lines[i]
		if strings.HasPrefix(fn, "panic(") {
			seenPanic = true
			continue
		}
		if !seenPanic || strings.HasPrefix(fn, "runtime.") || strings.HasPrefix(fn, "\t") {
			continue
		}
		file := strings.TrimSpace(lines[i+1])
		if j := strings.LastIndex(file, " +0x"); j >= 0 {
			file = file[:j]
		}
		if j := strings.Index(file, "/pkg/"); j >= 0 {
			file = file[j+1:]
		} else if j := strings.Index(file, "/internal/"); j >= 0 {
			file = file[j+1:]
		}
		if j := strings.LastIndex(fn, "("); j > 0 {
			fn = fn[:j]
		}
		return file + " (" + fn + ")"
	}
	return "unknown site"
}

func oneLine(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r", " "), "\n", " | ")
}

// TestBadInput runs every case in child processes and fails each case that
// panicked, crashed or succeeded where PyTorch fails.
func TestBadInput(t *testing.T) {
	cases := allCases(t)
	names := make([]string, len(cases))
	for i, c := range cases {
		names[i] = c.name
	}
	results := runAll(t, names)

	counts := map[string]int{}
	var notes []string
	for _, name := range names {
		r := results[name]
		counts[r.status]++
		if r.status == statusOK && r.msg != "" {
			notes = append(notes, name+": "+r.msg)
		}
		t.Run(name, func(t *testing.T) {
			switch r.status {
			case statusOK, statusError:
			case "":
				t.Errorf("no result")
			default:
				t.Errorf("%s: %s", r.status, r.msg)
			}
		})
	}
	t.Logf("%d cases: %d errors, %d accepted, %d failed, %d panicked, %d crashed",
		len(names), counts[statusError], counts[statusOK], counts[statusFail], counts[statusPanic], counts[statusCrash])
	if testing.Verbose() {
		t.Logf("accepted without an error:\n%s", strings.Join(notes, "\n"))
	}
}

// runAll runs the named cases in a few children at once and collects
// their results.
func runAll(t *testing.T, names []string) map[string]result {
	batches := min(runtime.GOMAXPROCS(0), 4)
	results := map[string]result{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for b := range batches {
		var part []string
		for i := b; i < len(names); i += batches {
			part = append(part, names[i])
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			rs := runBatch(t, part)
			mu.Lock()
			defer mu.Unlock()
			for k, v := range rs {
				results[k] = v
			}
		}()
	}
	wg.Wait()
	return results
}

// runBatch runs names in one child after another: when a child dies, the
// first case without a result is run alone (it is the one the child died
// in, or shows that it was not), and the rest go on in a new child.
func runBatch(t *testing.T, names []string) map[string]result {
	results := map[string]result{}
	for len(names) > 0 {
		got, died := runChild(t, names)
		for k, v := range got {
			results[k] = v
		}
		var pending []string
		for _, n := range names {
			if _, ok := results[n]; !ok {
				pending = append(pending, n)
			}
		}
		if len(pending) == 0 {
			break
		}
		if died == "" {
			died = "the child exited without reporting it"
		}
		first := pending[0]
		alone, diedAlone := runChild(t, pending[:1])
		if r, ok := alone[first]; ok {
			results[first] = r
		} else {
			if diedAlone == "" {
				diedAlone = died
			}
			results[first] = result{statusCrash, diedAlone}
		}
		names = pending[1:]
	}
	return results
}

// runChild runs names in one child process; died describes how the child
// ended when it did not end normally. (It runs on goroutines of runAll, so
// it reports no failure to t itself.)
func runChild(t *testing.T, names []string) (map[string]result, string) {
	dir := t.TempDir()
	list := filepath.Join(dir, "cases")
	if err := os.WriteFile(list, []byte(strings.Join(names, "\n")), 0o600); err != nil {
		return nil, "writing the list of cases: " + err.Error()
	}

	ctx, cancel := context.WithTimeout(context.Background(), childTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestBadInputChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"="+list, dirEnv+"="+dir)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()

	results := map[string]result{}
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), linePrefix)
		if !ok {
			continue
		}
		status, rest, _ := strings.Cut(line, " ")
		name, msg, _ := strings.Cut(rest, ": ")
		name = strings.TrimSuffix(name, ":")
		results[name] = result{status, msg}
	}
	if runErr == nil && len(results) == len(names) {
		return results, ""
	}
	died := fmt.Sprintf("child: %v", runErr)
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		died = fmt.Sprintf("child: still running after %v (a hang)", childTimeout)
	}
	if tail := crashTail(stderr.String() + stdout.String()); tail != "" {
		died += ": " + tail
	}
	return results, died
}

// crashTail picks the lines of a dead child's output that say why it died:
// the runtime's verdict and the first frames of the library after it.
func crashTail(out string) string {
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		verdict := strings.HasPrefix(l, "SIG") || strings.HasPrefix(l, "fatal error") ||
			strings.HasPrefix(l, "panic:") || strings.HasPrefix(l, "signal ")
		frame := len(keep) > 0 && len(keep) < 6 && strings.Contains(l, "/pkg/")
		if verdict || frame {
			keep = append(keep, strings.TrimSpace(l))
		}
	}
	return strings.Join(keep, " | ")
}

// --- checking results ---

var (
	tensorType  = reflect.TypeFor[*torch.Tensor]()
	tensorsType = reflect.TypeFor[[]*torch.Tensor]()
	errorType   = reflect.TypeFor[error]()
)

// expectError checks the results of a call that must fail: its error
// result must be non-nil, else each *Tensor result must carry an error.
// Results of other types (bool, int) are noted; true from a call with a
// nil argument is a failure.
func expectError(vals []reflect.Value) outcome {
	var o outcome
	var notes []string
	hasErrResult := false
	for _, v := range vals {
		if v.Type() == errorType {
			hasErrResult = true
		}
	}
	for _, v := range vals {
		switch {
		case v.Type() == errorType:
			if v.IsNil() {
				return outcome{fail: "returned a nil error"}
			}
			if o.err == nil {
				o.err = v.Interface().(error)
			}
		case hasErrResult:
			// The other results of a call that returns an error do not count.
		case v.Type() == tensorType:
			t := v.Interface().(*torch.Tensor)
			if t == nil {
				return outcome{fail: "returned a nil *Tensor"}
			}
			if t.Err() == nil {
				return outcome{fail: "returned a valid tensor: " + describe(t)}
			}
			if o.err == nil {
				o.err = t.Err()
			}
		case v.Type() == tensorsType:
			for i, t := range v.Interface().([]*torch.Tensor) {
				if t == nil || t.Err() == nil {
					return outcome{fail: fmt.Sprintf("tensor %d of the result is nil or valid", i)}
				}
				if o.err == nil {
					o.err = t.Err()
				}
			}
		case v.Kind() == reflect.Bool && v.Bool():
			return outcome{fail: "returned true"}
		default:
			notes = append(notes, fmt.Sprintf("%s %s", v.Type(), short(v)))
		}
	}
	if o.err == nil {
		o.note = "returned " + strings.Join(notes, ", ")
		if len(notes) == 0 {
			o.note = "no result"
		}
	}
	return o
}

// accept takes any results (a call PyTorch accepts, an accessor of a nil
// receiver), noting them.
func accept(vals []reflect.Value) outcome {
	var notes []string
	for _, v := range vals {
		if v.Type() == errorType && !v.IsNil() {
			return outcome{err: v.Interface().(error)}
		}
		if v.Type() == tensorType && !v.IsNil() && v.Interface().(*torch.Tensor).Err() != nil {
			return outcome{err: v.Interface().(*torch.Tensor).Err()}
		}
		notes = append(notes, fmt.Sprintf("%s %s", v.Type(), short(v)))
	}
	if len(notes) == 0 {
		return outcome{note: "accepted"}
	}
	return outcome{note: "returned " + strings.Join(notes, ", ")}
}

// short prints a result value briefly.
func short(v reflect.Value) string {
	if v.Type() == tensorType {
		if v.IsNil() {
			return "nil"
		}
		return describe(v.Interface().(*torch.Tensor))
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Func, reflect.Interface, reflect.Map, reflect.Slice:
		if v.IsNil() {
			return "nil"
		}
		if v.Kind() == reflect.Func {
			return "func"
		}
	}
	s := fmt.Sprintf("%v", v.Interface())
	if len(s) > 60 {
		s = s[:60] + "..."
	}
	return s
}

// describe names a tensor's dtype, shape and device.
func describe(t *torch.Tensor) string {
	if t == nil {
		return "nil"
	}
	if t.Err() != nil {
		return "failed tensor"
	}
	return fmt.Sprintf("%v%v %v", t.DType(), t.Shape(), t.Device())
}

// values turns the results of a call written in Go into reflect values,
// keeping their static types (a nil error stays an error).
func values[A any](a A) []reflect.Value {
	return []reflect.Value{reflect.ValueOf(&a).Elem()}
}

func values2[A, B any](a A, b B) []reflect.Value {
	return []reflect.Value{reflect.ValueOf(&a).Elem(), reflect.ValueOf(&b).Elem()}
}

func values3[A, B, C any](a A, b B, c C) []reflect.Value {
	return []reflect.Value{reflect.ValueOf(&a).Elem(), reflect.ValueOf(&b).Elem(), reflect.ValueOf(&c).Elem()}
}
