package torch_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

func TestTypedStorageSizes(t *testing.T) {
	for _, dt := range []torch.DType{torch.Bool, torch.Uint8, torch.Int8, torch.Int16, torch.Int32, torch.Int64,
		torch.Float16, torch.BFloat16, torch.Float32, torch.Float64} {
		t.Run(dt.String(), func(t *testing.T) {
			x := torch.Zeros([]int{3, 5}, torch.WithDType(dt))
			s := x.Storage()
			if s.DType() != dt || s.ElementSize() != dt.ItemSize() || s.Size() != 15 || s.Nbytes() != 15*dt.ItemSize() ||
				x.UntypedStorage().Nbytes() != s.Nbytes() || s.Untyped() != x.UntypedStorage() {
				t.Errorf("storage of %v: dtype %v, element %d, size %d, nbytes %d", dt, s.DType(), s.ElementSize(), s.Size(), s.Nbytes())
			}
			// The same bytes as another dtype: whole elements only.
			u := torch.NewTypedStorage(s.Untyped(), torch.Float64)
			if u.Size() != 15*dt.ItemSize()/8 {
				t.Errorf("as float64: %d elements", u.Size())
			}
		})
	}
}

func TestStorageSharedByViews(t *testing.T) {
	x := torch.Zeros([]int{2, 3})
	s := x.Storage()
	y := torch.FromStorage(s, 1, []int{2}, []int{3}) // column 1
	y.Fill_(7)
	got, _ := torch.ToSlice[float32](x)
	if diff := cmp.Diff([]float32{0, 7, 0, 0, 7, 0}, got); diff != "" {
		t.Errorf("write through FromStorage (-want +got):\n%s", diff)
	}
	if x.Storage() != y.Storage() || y.StorageOffset() != 1 {
		t.Error("the tensors must share the storage")
	}
	z := torch.Ones([]int{1}).Set_(s, 4, []int{2}, nil)
	z.AddScalar_(1)
	got, _ = torch.ToSlice[float32](x)
	if diff := cmp.Diff([]float32{0, 7, 0, 0, 8, 1}, got); diff != "" {
		t.Errorf("write through Set_ (-want +got):\n%s", diff)
	}
	cases := []struct {
		name string
		got  *torch.Tensor
		kind error
		text string
	}{
		{"out of bounds", torch.FromStorage(s, 4, []int{3}, nil), torch.ErrShape, "out of bounds for storage of size 24"},
		{"negative offset", torch.FromStorage(s, -1, []int{1}, nil), torch.ErrArgument, "invalid storage offset"},
		{"strides and shape", torch.FromStorage(s, 0, []int{1, 2}, []int{1}), torch.ErrArgument, "strides and shape"},
		{"dtype", torch.Zeros([]int{1}, torch.WithDType(torch.Int64)).Set_(s, 0, []int{1}, nil), torch.ErrDType, "Expected a storage of type"},
	}
	for _, c := range cases {
		if err := c.got.Err(); !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.text) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

func TestUntypedStorageOps(t *testing.T) {
	x := torch.FromSlice([]int16{1, 2, 3})
	u := x.UntypedStorage()
	b, err := u.Tolist()
	if err != nil || !cmp.Equal(b, []byte{1, 0, 2, 0, 3, 0}) {
		t.Errorf("Tolist = %v, %v", b, err)
	}
	c, err := u.Clone()
	if err != nil || c == u {
		t.Fatalf("Clone: %v", err)
	}
	if err := c.Fill_(1); err != nil {
		t.Fatal(err)
	}
	if v, _ := torch.ToSlice[int16](x); !cmp.Equal(v, []int16{1, 2, 3}) {
		t.Errorf("filling a clone changed the original: %v", v)
	}
	if err := u.Copy_(c); err != nil {
		t.Fatal(err)
	}
	if v, _ := torch.ToSlice[int16](x); !cmp.Equal(v, []int16{257, 257, 257}) {
		t.Errorf("after Copy_: %v", v)
	}
	small, _ := torch.NewUntypedStorage(2)
	if err := u.Copy_(small); !errors.Is(err, torch.ErrShape) {
		t.Errorf("Copy_ of another size: %v", err)
	}
	// Typed: values, fill, copy with conversion, resize.
	s := x.Storage()
	if err := s.Fill_(9); err != nil {
		t.Fatal(err)
	}
	if v, err := s.Tolist(); err != nil || !cmp.Equal(v, any([]int16{9, 9, 9})) {
		t.Errorf("typed Tolist = %v, %v", v, err)
	}
	f := torch.FromSlice([]float64{1.5, -2.5, 4}).Storage()
	if err := s.Copy_(f); err != nil {
		t.Fatal(err)
	}
	if v, _ := torch.ToSlice[int16](x); !cmp.Equal(v, []int16{1, -2, 4}) {
		t.Errorf("typed Copy_ converts as a cast: %v", v)
	}
	if err := s.Resize_(5); err != nil {
		t.Fatal(err)
	}
	if v, _ := s.Tolist(); !cmp.Equal(v, any([]int16{1, -2, 4, 0, 0})) || s.Size() != 5 {
		t.Errorf("after growing: %v", v)
	}
	if v, _ := torch.ToSlice[int16](x); !cmp.Equal(v, []int16{1, -2, 4}) {
		t.Errorf("the tensor follows its resized storage: %v", v)
	}
	if err := s.Resize_(1); err != nil || s.Size() != 1 {
		t.Errorf("shrinking: %v", err)
	}
	if err := x.Err(); err != nil {
		t.Fatal(err)
	}
}

func TestMetaStorage(t *testing.T) {
	x := torch.Empty([]int{4, 2}, torch.WithDevice("meta"))
	s := x.Storage()
	if s.Nbytes() != 32 || s.Size() != 8 || s.Device().String() != "meta" {
		t.Errorf("meta storage: %d bytes, %d elements, %v", s.Nbytes(), s.Size(), s.Device())
	}
	if _, err := s.DataPtr(); !errors.Is(err, torch.ErrDevice) {
		t.Errorf("DataPtr of meta storage: %v", err)
	}
	if _, err := s.Tolist(); !errors.Is(err, torch.ErrDevice) {
		t.Errorf("Tolist of meta storage: %v", err)
	}
	if _, err := x.UntypedStorage().Tolist(); !errors.Is(err, torch.ErrDevice) {
		t.Errorf("untyped Tolist of meta storage: %v", err)
	}
	if err := s.Resize_(16); err != nil || s.Nbytes() != 64 {
		t.Errorf("resizing meta storage: %v", err)
	}
}

func writeFile(t *testing.T, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "data.bin")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestStorageFromFileShared(t *testing.T) {
	p := writeFile(t, []byte{1, 0, 0, 0, 2, 0, 0, 0})
	u, err := torch.UntypedStorageFromFile(p, true, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer u.Release()
	if u.Filename() != p || !u.IsShared() || u.Nbytes() != 8 {
		t.Errorf("filename %q, shared %v, nbytes %d", u.Filename(), u.IsShared(), u.Nbytes())
	}
	x := torch.FromStorage(torch.NewTypedStorage(u, torch.Int32), 0, []int{2}, nil)
	if v, _ := torch.ToSlice[int32](x); !cmp.Equal(v, []int32{1, 2}) {
		t.Errorf("read %v", v)
	}
	x.AddScalar_(40)
	// A second shared mapping sees the write at once, and so does the file.
	u2, err := torch.UntypedStorageFromFile(p, true, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer u2.Release()
	if b, _ := u2.Tolist(); !cmp.Equal(b, []byte{41, 0, 0, 0, 42, 0, 0, 0}) {
		t.Errorf("second mapping reads %v", b)
	}
	if b, _ := os.ReadFile(p); !cmp.Equal(b, []byte{41, 0, 0, 0, 42, 0, 0, 0}) {
		t.Errorf("file holds %v", b)
	}
	if err := u.Resize_(16); !errors.Is(err, torch.ErrArgument) {
		t.Errorf("resizing a mapped storage: %v", err)
	}
	// Larger than the file: a shared mapping grows it.
	g, err := torch.UntypedStorageFromFile(p, true, 12)
	if err != nil {
		t.Fatal(err)
	}
	g.Release()
	if st, _ := os.Stat(p); st.Size() != 12 {
		t.Errorf("file is %d bytes, want grown to 12", st.Size())
	}
	// A file that does not exist is created by a shared mapping.
	fresh := filepath.Join(t.TempDir(), "new.bin")
	n, err := torch.UntypedStorageFromFile(fresh, true, 64)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := n.Tolist(); !bytes.Equal(b, make([]byte, 64)) {
		t.Error("a new file maps as zeros")
	}
	n.Release()
}

func TestStorageFromFilePrivate(t *testing.T) {
	p := writeFile(t, []byte{5, 6, 7, 8})
	u, err := torch.UntypedStorageFromFile(p, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer u.Release()
	if u.IsShared() || u.Filename() != p {
		t.Errorf("private mapping: shared %v, filename %q", u.IsShared(), u.Filename())
	}
	if err := u.Fill_(0); err != nil {
		t.Fatal(err)
	}
	if b, _ := u.Tolist(); !cmp.Equal(b, []byte{0, 0, 0, 0}) {
		t.Errorf("the mapping reads %v after the write", b)
	}
	if b, _ := os.ReadFile(p); !cmp.Equal(b, []byte{5, 6, 7, 8}) {
		t.Errorf("a private mapping changed the file: %v", b)
	}
}

func TestStorageFromFileErrors(t *testing.T) {
	p := writeFile(t, []byte{1, 2, 3, 4})
	cases := []struct {
		name   string
		path   string
		shared bool
		nbytes int
		text   string
	}{
		{"missing file", filepath.Join(t.TempDir(), "missing"), false, 0, "no such file"},
		{"directory", t.TempDir(), false, 0, "is a directory"},
		{"larger than a private file", p, false, 8, "smaller than the 8 bytes"},
		{"negative size", p, false, -1, "non-negative"},
	}
	for _, c := range cases {
		u, err := torch.UntypedStorageFromFile(c.path, c.shared, c.nbytes)
		if err == nil || !strings.Contains(err.Error(), c.text) || !errors.Is(err, torch.ErrArgument) {
			t.Errorf("%s: %v", c.name, err)
		}
		if u != nil {
			t.Errorf("%s: a storage came with the error", c.name)
		}
	}
}

// TestStorageFromFileNoPermission maps a read-only file shared, as a user
// without write access: as root the test runs itself as nobody.
func TestStorageFromFileNoPermission(t *testing.T) {
	p := filepath.Join(openDir(t), "ro.bin")
	if err := os.WriteFile(p, []byte{1, 2, 3, 4}, 0o444); err != nil {
		t.Fatal(err)
	}
	if os.Getuid() != 0 {
		_, err := torch.UntypedStorageFromFile(p, true, 0)
		if err == nil || !strings.Contains(err.Error(), "permission denied") {
			t.Errorf("shared mapping of a read-only file: %v", err)
		}
		return
	}
	out, err := child(t, "permission", p, &syscall.Credential{Uid: 65534, Gid: 65534})
	if err != nil || !strings.Contains(out, "permission denied") {
		t.Errorf("as nobody: %v: %s", err, out)
	}
}

// openDir is a temporary directory that every user can enter.
func openDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// child runs this test binary again as the other process of a test
// (TestMain hands it to storageChild).
func child(t *testing.T, role, arg string, cred *syscall.Credential, files ...*os.File) (string, error) {
	t.Helper()
	bin := os.Args[0]
	if cred != nil { // another user may not reach the build directory: run a copy
		b, err := os.ReadFile(bin)
		if err != nil {
			t.Fatal(err)
		}
		bin = filepath.Join(openDir(t), "child.test")
		if err := os.WriteFile(bin, b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "MINDTORCH_STORAGE_CHILD="+role, "MINDTORCH_STORAGE_ARG="+arg)
	cmd.ExtraFiles = files
	if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func TestShareMemoryAcrossProcesses(t *testing.T) {
	x := torch.Arange(6, torch.WithDType(torch.Float32)).Reshape(2, 3)
	view := x.Select(1, 1)
	if x.IsShared() {
		t.Fatal("fresh memory is not shared")
	}
	if err := x.ShareMemory_().Err(); err != nil {
		t.Fatal(err)
	}
	if !x.IsShared() || !view.IsShared() {
		t.Fatal("after ShareMemory_ the storage (and its views) are shared")
	}
	if v, _ := torch.ToSlice[float32](x); !cmp.Equal(v, []float32{0, 1, 2, 3, 4, 5}) {
		t.Errorf("values moved into shared memory: %v", v)
	}
	// The child gets a duplicate of the descriptor, which this test owns and
	// closes. os.NewFile(Fd()) would give the storage's own descriptor a
	// second owner: the *os.File closes it when collected, and the storage
	// closes the number again, by then perhaps another file's.
	f, err := x.UntypedStorage().File()
	if err != nil {
		t.Fatal(err)
	}
	out, err := child(t, "writer", strconv.Itoa(x.UntypedStorage().Nbytes()), nil, f)
	f.Close()
	if err != nil {
		t.Fatalf("child: %v: %s", err, out)
	}
	if v, _ := torch.ToSlice[float32](x); !cmp.Equal(v, []float32{1, 11, 21, 31, 41, 51}) {
		t.Errorf("the parent sees the child's writes: %v", v)
	}
	if v, _ := torch.ToSlice[float32](view); !cmp.Equal(v, []float32{11, 41}) {
		t.Errorf("and so does a view: %v", v)
	}
	if _, err := torch.Ones([]int{2}).UntypedStorage().Fd(); !errors.Is(err, torch.ErrArgument) {
		t.Errorf("Fd of memory that is not shared: %v", err)
	}
	if err := x.UntypedStorage().Resize_(4); !errors.Is(err, torch.ErrArgument) {
		t.Errorf("resizing shared storage: %v", err)
	}
}
