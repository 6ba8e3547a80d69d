package safetensors_test

import (
	"encoding/binary"
	"errors"
	"math"
	"os"
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
	ts, err := safetensors.Load(filepath.Join(dir, "unaligned.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
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
