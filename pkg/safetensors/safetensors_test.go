package safetensors_test

import (
	"encoding/binary"
	"errors"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mindtorch/mindtorch/internal/golden"
	"github.com/mindtorch/mindtorch/pkg/nn"
	"github.com/mindtorch/mindtorch/pkg/safetensors"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

const dir = "../../testdata/safetensors"

func TestOpenFileWrittenFromPyTorch(t *testing.T) {
	var want map[string]struct {
		Shape []int `json:"shape"`
		Data  []any `json:"data"`
	}
	if err := golden.Load("safetensors/dtypes.json", &want); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "dtypes.safetensors")
	f, err := safetensors.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if diff := cmp.Diff(map[string]string{"format": "pt", "source": "scripts/golden/safetensors.py"}, f.Metadata()); diff != "" {
		t.Errorf("metadata (-want +got):\n%s", diff)
	}
	if len(f.Keys()) != len(want) {
		t.Errorf("keys %v", f.Keys())
	}
	for name, w := range want {
		x, err := f.Tensor(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !cmp.Equal(x.Shape(), w.Shape, cmp.Comparer(func(a, b []int) bool { return len(a) == len(b) && (len(a) == 0 || cmp.Equal(a, b)) })) {
			t.Errorf("%s: shape %v, want %v", name, x.Shape(), w.Shape)
		}
		if x.UntypedStorage().Filename() != path {
			t.Errorf("%s: not a view of the mapped file", name)
		}
		got, err := torch.ToSlice[float64](x)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range w.Data {
			var f float64
			switch v := v.(type) {
			case bool:
				if v {
					f = 1
				}
			case float64:
				f = v
			}
			if got[i] != f {
				t.Errorf("%s[%d] = %v, want %v", name, i, got[i], f)
			}
		}
	}
	if _, err := f.Tensor("nope"); err == nil || !strings.Contains(err.Error(), `no tensor named "nope"`) {
		t.Errorf("missing name: %v", err)
	}
}

func TestUnalignedDataIsCopied(t *testing.T) {
	f, err := safetensors.Open(filepath.Join(dir, "unaligned.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ts := f.Tensors()
	if a, _ := torch.ToSlice[int8](ts["a"]); !cmp.Equal(a, []int8{0, 1, 2}) {
		t.Errorf("a = %v", a)
	}
	if ts["b"].UntypedStorage().Filename() != "" {
		t.Error("float32 data at an odd address must be copied, not viewed")
	}
	if err := ts["b"].Sum().Err(); err != nil {
		t.Error(err)
	}
}

func TestSaveRoundTrip(t *testing.T) {
	torch.ManualSeed(0)
	x := torch.Randn([]int{3, 4})
	tensors := map[string]*torch.Tensor{
		"transposed": x.T(), // saved in row-major order
		"ints":       torch.Arange(5, torch.WithDType(torch.Int64)),
		"half":       x.ToDType(torch.Float16),
		"flags":      x.GtScalar(0),
		"scalar":     torch.FromSlice([]float64{2.5}).Reshape(),
	}
	path := filepath.Join(t.TempDir(), "round.safetensors")
	if err := safetensors.Save(path, tensors, map[string]string{"k": "v"}); err != nil {
		t.Fatal(err)
	}
	f, err := safetensors.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if f.Metadata()["k"] != "v" {
		t.Errorf("metadata %v", f.Metadata())
	}
	for name, want := range tensors {
		got, err := f.Tensor(name)
		if err != nil {
			t.Fatal(err)
		}
		if got.DType() != want.DType() || !torch.Equal(got, want) {
			t.Errorf("%s: got %v, want %v", name, got, want)
		}
		if p, _ := got.DataPtr(); p%8 != 0 && got.ElementSize() == 8 {
			t.Errorf("%s: data not aligned", name)
		}
	}
	// Tensors outlive Close; writes into them never reach the file.
	v, _ := f.Tensor("ints")
	f.Close()
	v.AddScalar_(100)
	again, err := safetensors.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := torch.ToSlice[int64](again["ints"]); !cmp.Equal(got, []int64{0, 1, 2, 3, 4}) {
		t.Errorf("file changed by a write into a loaded tensor: %v", got)
	}
	if got, _ := torch.ToSlice[int64](v); got[0] != 100 {
		t.Errorf("the tensor itself took the write: %v", got)
	}
}

func TestSaveErrors(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.safetensors")
	bad := torch.Ones([]int{2}).Add(torch.Ones([]int{3}))
	if err := safetensors.Save(path, map[string]*torch.Tensor{"bad": bad}, nil); !errors.Is(err, torch.ErrShape) {
		t.Errorf("failed tensor: %v", err)
	}
	meta := torch.Empty([]int{2}, torch.WithDevice("meta"))
	if err := safetensors.Save(path, map[string]*torch.Tensor{"m": meta}, nil); !errors.Is(err, torch.ErrDevice) {
		t.Errorf("meta tensor: %v", err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Error("a failed save left a file")
	}
}

// checkpoint is a few tensors of different dtypes, the largest spanning
// many pages, times k.
func checkpoint(k float64) map[string]*torch.Tensor {
	w := torch.Arange(1<<16, torch.WithDType(torch.Float32)).Reshape(256, 256).MulScalar(k)
	return map[string]*torch.Tensor{
		"w":     w,
		"b":     torch.FromSlice([]float64{1, 2, 3}).MulScalar(k),
		"steps": torch.FromSlice([]int64{7}).MulScalar(int64(k)),
		"half":  w.Narrow(0, 0, 4).ToDType(torch.BFloat16),
	}
}

// sameTensors reports which tensors of got differ from want (or are missing).
func sameTensors(t *testing.T, what string, got, want map[string]*torch.Tensor) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d tensors, want %d", what, len(got), len(want))
	}
	for name, w := range want {
		if g, ok := got[name]; !ok || g.Err() != nil || g.DType() != w.DType() || !torch.Equal(g, w) {
			t.Errorf("%s: tensor %q = %v, want %v", what, name, g, w)
		}
	}
}

// inChild runs the calling test again in a child process and reports false
// there, so that a crash (a SIGBUS from a mapped file cut short) fails the
// test instead of killing the test binary; in the child it reports true and
// the caller runs the test's body.
func inChild(t *testing.T) bool {
	t.Helper()
	if os.Getenv("SAFETENSORS_TEST_CHILD") == t.Name() {
		return true
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "SAFETENSORS_TEST_CHILD="+t.Name())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("the test in a child process: %v\n%s", err, out)
	}
	return false
}

// files lists the names in dir.
func files(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// Load then Save to the same path: the loaded tensors own their data, so
// Save reads them whole, and they keep their values after it.
func TestLoadThenSaveSamePath(t *testing.T) {
	if !inChild(t) {
		return
	}
	p := filepath.Join(t.TempDir(), "m.safetensors")
	want := checkpoint(1)
	if err := safetensors.Save(p, want, nil); err != nil {
		t.Fatal(err)
	}
	sd, err := safetensors.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := safetensors.Save(p, sd, nil); err != nil {
		t.Fatal(err)
	}
	sameTensors(t, "the tensors of the first Load", sd, want)
	again, err := safetensors.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	sameTensors(t, "the file saved over itself", again, want)
}

// Tensors from Load do not depend on the file: it may be truncated or
// removed by anyone.
func TestLoadedTensorsOutliveTheFile(t *testing.T) {
	if !inChild(t) {
		return
	}
	p := filepath.Join(t.TempDir(), "m.safetensors")
	want := checkpoint(1)
	if err := safetensors.Save(p, want, nil); err != nil {
		t.Fatal(err)
	}
	sd, err := safetensors.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	for name, x := range sd {
		if x.UntypedStorage().Filename() != "" {
			t.Errorf("%s: Load must copy, not map the file", name)
		}
	}
	if err := os.Truncate(p, 0); err != nil {
		t.Fatal(err)
	}
	sameTensors(t, "after truncating the file", sd, want)
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	sameTensors(t, "after removing the file", sd, want)
}

// Open then Save to the same path: the tensors view the old file, which
// Save replaces by a new one (another inode) instead of truncating it, so
// they keep the old values.
func TestOpenThenSaveSamePath(t *testing.T) {
	if !inChild(t) {
		return
	}
	p := filepath.Join(t.TempDir(), "m.safetensors")
	old, changed := checkpoint(1), checkpoint(3)
	if err := safetensors.Save(p, old, nil); err != nil {
		t.Fatal(err)
	}
	before, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	f, err := safetensors.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	ts := f.Tensors()
	f.Close()
	if err := safetensors.Save(p, ts, nil); err != nil { // the mapped tensors themselves
		t.Fatal(err)
	}
	if err := safetensors.Save(p, changed, nil); err != nil {
		t.Fatal(err)
	}
	sameTensors(t, "the tensors from Open after two saves", ts, old)
	after, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if os.SameFile(before, after) {
		t.Error("Save wrote into the old file instead of replacing it")
	}
	again, err := safetensors.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	sameTensors(t, "the file saved last", again, changed)
	if names := files(t, filepath.Dir(p)); !cmp.Equal(names, []string{"m.safetensors"}) {
		t.Errorf("files left in the directory: %v", names)
	}
}

// A Save stopped between writing the temporary file and renaming it (as by
// a crash) leaves the old checkpoint whole, and the error return removes
// the temporary file.
func TestSaveInterruptedBeforeRename(t *testing.T) {
	d := t.TempDir()
	p := filepath.Join(d, "m.safetensors")
	old, changed := checkpoint(1), checkpoint(3)
	if err := safetensors.Save(p, old, map[string]string{"v": "1"}); err != nil {
		t.Fatal(err)
	}
	crash := errors.New("simulated crash")
	var tmp string
	defer safetensors.SetBeforeRename(func(name string) error {
		tmp = name
		if filepath.Dir(name) != d || !strings.HasPrefix(filepath.Base(name), ".m.safetensors.tmp-") {
			t.Errorf("temporary file %s, want .m.safetensors.tmp-* in %s", name, d)
		}
		written, err := safetensors.Load(name) // the new checkpoint, complete
		if err != nil {
			t.Fatal(err)
		}
		sameTensors(t, "the temporary file", written, changed)
		target, err := safetensors.Load(p) // the old one, untouched
		if err != nil {
			t.Fatal(err)
		}
		sameTensors(t, "the target before the rename", target, old)
		return crash
	})()
	err := safetensors.Save(p, changed, map[string]string{"v": "2"})
	if !errors.Is(err, crash) || !strings.Contains(err.Error(), p) {
		t.Errorf("Save: %v, want the simulated crash naming %s", err, p)
	}
	if tmp == "" {
		t.Fatal("the hook did not run")
	}
	f, err := safetensors.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Metadata()["v"] != "1" {
		t.Errorf("metadata %v, want the old checkpoint's", f.Metadata())
	}
	sameTensors(t, "the target after the failed save", f.Tensors(), old)
	if names := files(t, d); !cmp.Equal(names, []string{"m.safetensors"}) {
		t.Errorf("files left in the directory: %v", names)
	}
}

// A tensor that fails while Save writes (here, released memory) stops it
// with an error; the old checkpoint stays as it was.
func TestSaveFailingMidwayKeepsTheTarget(t *testing.T) {
	d := t.TempDir()
	p := filepath.Join(d, "m.safetensors")
	old := checkpoint(1)
	if err := safetensors.Save(p, old, nil); err != nil {
		t.Fatal(err)
	}
	gone := torch.Ones([]int{4})
	gone.Release()
	err := safetensors.Save(p, map[string]*torch.Tensor{"a": torch.Ones([]int{3}), "z": gone}, nil)
	if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), `"z"`) {
		t.Errorf("saving a released tensor: %v", err)
	}
	again, err := safetensors.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	sameTensors(t, "the target after the failed save", again, old)
	if names := files(t, d); !cmp.Equal(names, []string{"m.safetensors"}) {
		t.Errorf("files left in the directory: %v", names)
	}
}

// Saving where no file can be created is an error that names the path,
// and leaves nothing behind.
func TestSaveIntoAnUnwritableDirectory(t *testing.T) {
	d := t.TempDir()
	notDir := filepath.Join(d, "file")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	readOnly := filepath.Join(d, "ro")
	if err := os.Mkdir(readOnly, 0o555); err != nil {
		t.Fatal(err)
	}
	paths := []string{filepath.Join(d, "missing", "m.safetensors"), filepath.Join(notDir, "m.safetensors")}
	if os.Geteuid() != 0 { // root writes anywhere
		paths = append(paths, filepath.Join(readOnly, "m.safetensors"))
	}
	for _, p := range paths {
		err := safetensors.Save(p, checkpoint(1), nil)
		if err == nil || !strings.Contains(err.Error(), "safetensors: saving "+p) {
			t.Errorf("Save(%s): %v, want an error naming the path", p, err)
		}
	}
	if names := files(t, d); !cmp.Equal(names, []string{"file", "ro"}) {
		t.Errorf("files left in the directory: %v", names)
	}
	if names := files(t, readOnly); len(names) != 0 {
		t.Errorf("files left in the read-only directory: %v", names)
	}
}

// Save replaces the file a symbolic link points to, keeps the link, and
// keeps the replaced file's mode.
func TestSaveThroughASymlinkKeepsLinkAndMode(t *testing.T) {
	d := t.TempDir()
	real, link := filepath.Join(d, "real.safetensors"), filepath.Join(d, "link.safetensors")
	if err := safetensors.Save(real, checkpoint(1), nil); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(real, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real.safetensors", link); err != nil {
		t.Fatal(err)
	}
	if err := safetensors.Save(link, checkpoint(2), nil); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", st, err)
	}
	if st, err := os.Stat(real); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("the file's mode: %v %v", st, err)
	}
	got, err := safetensors.Load(real)
	if err != nil {
		t.Fatal(err)
	}
	sameTensors(t, "the file behind the link", got, checkpoint(2))
}

// file writes a safetensors file from a raw header and data.
func file(t testing.TB, header string, data []byte) string {
	t.Helper()
	var head [8]byte
	binary.LittleEndian.PutUint64(head[:], uint64(len(header)))
	p := filepath.Join(t.TempDir(), "f.safetensors")
	if err := os.WriteFile(p, append(append(head[:], header...), data...), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestMalformedFiles(t *testing.T) {
	short := filepath.Join(t.TempDir(), "short")
	long := filepath.Join(t.TempDir(), "long")
	b := make([]byte, 16)
	binary.LittleEndian.PutUint64(b, 1000)
	for p, data := range map[string][]byte{short: {1, 2}, long: b} {
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name, path, text string
	}{
		{"too short", short, "too short"},
		{"header longer than the file", long, "does not fit"},
		{"not JSON", file(t, `[1, 2]`, nil), "not a JSON object"},
		{"bad JSON", file(t, `{"a": `, nil), "header"},
		{"unknown dtype", file(t, `{"a": {"dtype": "F8_E4M3", "shape": [1], "data_offsets": [0, 1]}}`, []byte{0}), "unsupported dtype"},
		{"offsets outside", file(t, `{"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}`, make([]byte, 4)), "outside"},
		{"size mismatch", file(t, `{"a": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}}`, make([]byte, 8)), "8 bytes for F32 [3]"},
		{"negative dim", file(t, `{"a": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 0]}}`, nil), "negative dimension"},
		{"bad metadata", file(t, `{"__metadata__": {"a": 1}}`, nil), "__metadata__"},
	}
	for _, c := range cases {
		_, err := safetensors.Open(c.path)
		var se *safetensors.Error
		if !errors.As(err, &se) || !strings.Contains(err.Error(), c.text) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	if _, err := safetensors.Open(filepath.Join(t.TempDir(), "missing")); !os.IsNotExist(err) {
		t.Errorf("missing file: %v", err)
	}
}

func TestStateDictThroughSafetensors(t *testing.T) {
	torch.ManualSeed(1)
	a := nn.NewSequential(nn.NewLinear(4, 3), nn.ReLU(), nn.NewLinear(3, 2))
	torch.ManualSeed(2)
	b := nn.NewSequential(nn.NewLinear(4, 3), nn.ReLU(), nn.NewLinear(3, 2))
	path := filepath.Join(t.TempDir(), "model.safetensors")
	if err := safetensors.Save(path, nn.StateDict(a), nil); err != nil {
		t.Fatal(err)
	}
	sd, err := safetensors.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := nn.LoadStateDict(b, sd); err != nil {
		t.Fatal(err)
	}
	x := torch.Randn([]int{5, 4})
	if !torch.Equal(a.Forward(x), b.Forward(x)) {
		t.Error("the loaded model computes differently")
	}
	for name, p := range nn.StateDict(b) {
		if p.UntypedStorage() == sd[name].UntypedStorage() {
			t.Errorf("%s: the parameter must own a copy, not the mapping", name)
		}
	}
}

// bigFile writes a sparse safetensors file with one tensor of n float32
// values and a small one after it.
func bigFile(t testing.TB, n int64) string {
	t.Helper()
	header := `{"big": {"dtype": "F32", "shape": [` + itoa(n) + `], "data_offsets": [0, ` + itoa(4*n) + `]}, ` +
		`"small": {"dtype": "F32", "shape": [2], "data_offsets": [` + itoa(4*n) + `, ` + itoa(4*n+8) + `]}}`
	for len(header)%8 != 0 {
		header += " "
	}
	p := filepath.Join(t.TempDir(), "big.safetensors")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	var head [8]byte
	binary.LittleEndian.PutUint64(head[:], uint64(len(header)))
	f.Write(head[:])
	f.WriteString(header)
	tail := make([]byte, 8)
	binary.LittleEndian.PutUint32(tail, math.Float32bits(1.5))
	binary.LittleEndian.PutUint32(tail[4:], math.Float32bits(-2))
	if _, err := f.WriteAt(tail, 8+int64(len(header))+4*n); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return p
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestOpenGiBFileKeepsHeapFlat opens a 1 GiB file and takes tensors from
// it: the Go heap must not grow by more than 1 MiB (nothing is read).
func TestOpenGiBFileKeepsHeapFlat(t *testing.T) {
	path := bigFile(t, 1<<28)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f, err := safetensors.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	small, err := f.Tensor("small")
	if err != nil {
		t.Fatal(err)
	}
	big, err := f.Tensor("big")
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 1<<20 {
		t.Errorf("the heap grew by %d bytes", grew)
	}
	if v, _ := torch.ToSlice[float32](small); !cmp.Equal(v, []float32{1.5, -2}) {
		t.Errorf("small = %v", v)
	}
	if big.Numel() != 1<<28 {
		t.Errorf("big has %d elements", big.Numel())
	}
	f.Close()
	big.Release()
	small.Release()
}

func BenchmarkOpenGiBFile(b *testing.B) {
	path := bigFile(b, 1<<28)
	b.ReportAllocs()
	for b.Loop() {
		f, err := safetensors.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		x, err := f.Tensor("small")
		if err != nil {
			b.Fatal(err)
		}
		x.Release()
		f.Close()
	}
}

func FuzzOpen(f *testing.F) {
	f.Add([]byte(`{"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}`), []byte{0, 0, 128, 63})
	f.Add([]byte(`{"__metadata__": {"x": "y"}}`), []byte(nil))
	f.Add([]byte(`{"a": {"dtype": "I64", "shape": [4611686018427387904, 4], "data_offsets": [0, 0]}}`), []byte(nil))
	f.Fuzz(func(t *testing.T, header, data []byte) {
		p := file(t, string(header), data)
		file, err := safetensors.Open(p)
		if err != nil {
			return
		}
		for _, k := range file.Keys() {
			x, err := file.Tensor(k)
			if err != nil {
				t.Fatalf("%s: listed but not readable: %v", k, err)
			}
			if _, err := torch.ToSlice[float64](x); err != nil {
				t.Fatalf("%s: %v", k, err)
			}
		}
		file.Close()
	})
}
