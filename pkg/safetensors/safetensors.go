// Package safetensors reads and writes the safetensors format: an 8-byte
// little-endian header length, a JSON header naming each tensor's dtype,
// shape and byte range, then the data.
//
// Load reads a whole file into memory; its tensors owe nothing to the file
// afterwards. Open maps the file and makes tensors that view the mapping,
// so opening a file of any size reads only its header; the file must then
// stay as it is (not truncated or rewritten in place) while those tensors
// live. Save writes a new file and renames it over the old one, so saving
// over a file that is open or loaded, or crashing while saving, never
// destroys it.
//
//	f, err := safetensors.Open("model.safetensors")
//	defer f.Close()
//	w, err := f.Tensor("0.weight")           // a view of the mapped file
//	err = nn.LoadStateDict(model, f.Tensors()) // one copy into the parameters
package safetensors

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// maxHeader bounds the JSON header, as the reference implementation does.
const maxHeader = 100 << 20

var dtypes = map[string]torch.DType{
	"BOOL": torch.Bool, "U8": torch.Uint8, "I8": torch.Int8, "I16": torch.Int16, "I32": torch.Int32,
	"I64": torch.Int64, "F16": torch.Float16, "BF16": torch.BFloat16, "F32": torch.Float32, "F64": torch.Float64,
}

func dtypeName(d torch.DType) string {
	for name, dt := range dtypes {
		if dt == d {
			return name
		}
	}
	return ""
}

// entry is one tensor of the header.
type entry struct {
	DType   string   `json:"dtype"`
	Shape   []int    `json:"shape"`
	Offsets [2]int64 `json:"data_offsets"`
}

// File is a safetensors file opened by Open: its header, and the private
// mapping its tensors view.
type File struct {
	path     string
	data     *torch.UntypedStorage // the bytes after the header
	entries  map[string]entry
	metadata map[string]string
}

// Error is a malformed or unreadable file.
type Error struct {
	Path   string
	Detail string
}

// Error is "safetensors: <path>: <detail>".
func (e *Error) Error() string { return "safetensors: " + e.Path + ": " + e.Detail }

// header is a checked header: the tensors, the metadata, and where the
// data starts and how long it is.
type header struct {
	entries   map[string]entry
	metadata  map[string]string
	dataStart int64
	dataLen   int64
}

// readHeader reads and checks the header of fh, the file at path.
func readHeader(fh *os.File, path string) (*header, error) {
	bad := func(format string, args ...any) (*header, error) {
		return nil, &Error{Path: path, Detail: fmt.Sprintf(format, args...)}
	}
	var head [8]byte
	_, err := fh.ReadAt(head[:], 0)
	st, serr := fh.Stat()
	if err != nil || serr != nil {
		return bad("too short for a header")
	}
	n := binary.LittleEndian.Uint64(head[:])
	size := st.Size()
	if n > maxHeader || int64(n) > size-8 {
		return bad("header length %d does not fit a file of %d bytes", n, size)
	}
	raw := make([]byte, n)
	if _, err := fh.ReadAt(raw, 8); err != nil {
		return bad("reading the header: %v", err)
	}
	if len(raw) == 0 || raw[0] != '{' {
		return bad("the header is not a JSON object")
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return bad("header: %v", err)
	}
	h := &header{entries: map[string]entry{}, dataStart: 8 + int64(n), dataLen: size - 8 - int64(n)}
	if m, ok := fields["__metadata__"]; ok {
		if err := json.Unmarshal(m, &h.metadata); err != nil {
			return bad("__metadata__ must map strings to strings: %v", err)
		}
		delete(fields, "__metadata__")
	}
	for name, msg := range fields {
		var e entry
		if err := json.Unmarshal(msg, &e); err != nil {
			return bad("tensor %q: %v", name, err)
		}
		dt, ok := dtypes[e.DType]
		if !ok {
			return bad("tensor %q: unsupported dtype %q", name, e.DType)
		}
		numel := int64(1)
		for _, s := range e.Shape {
			if s < 0 {
				return bad("tensor %q: negative dimension in shape %v", name, e.Shape)
			}
			if s > 0 && numel > math.MaxInt64/int64(s) {
				return bad("tensor %q: shape %v overflows", name, e.Shape)
			}
			numel *= int64(s)
		}
		begin, end := e.Offsets[0], e.Offsets[1]
		if begin < 0 || end < begin || end > h.dataLen {
			return bad("tensor %q: data offsets [%d, %d) outside the %d data bytes", name, begin, end, h.dataLen)
		}
		if numel > math.MaxInt64/int64(dt.ItemSize()) || end-begin != numel*int64(dt.ItemSize()) {
			return bad("tensor %q: %d bytes for %s %v", name, end-begin, e.DType, e.Shape)
		}
		h.entries[name] = e
	}
	return h, nil
}

// Open checks the file's header and maps the file privately (copy-on-write:
// writes into its tensors never reach the file), reading nothing else: the
// way to open a checkpoint larger than memory, or to take a few tensors
// from one. Its tensors read the file as they are used, so the file must
// not be truncated or rewritten in place while they are alive (reading a
// page that is gone is a SIGBUS, which crashes the program). Replacing the
// file is safe: Save, even to the same path, writes a new file and renames
// it over the old one, and the mapping keeps the old file's data.
func Open(path string) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	h, err := readHeader(fh, path)
	fh.Close()
	if err != nil {
		return nil, err
	}
	whole, err := torch.UntypedStorageFromFile(path, false, int(h.dataStart+h.dataLen))
	if err != nil {
		return nil, err
	}
	f := &File{path: path, entries: h.entries, metadata: h.metadata}
	f.data, err = whole.Slice(int(h.dataStart), int(h.dataLen))
	whole.Release()
	if err != nil {
		return nil, err
	}
	return f, nil
}

// errNilFile is the error of a method called on a nil *File.
var errNilFile = &Error{Detail: "a nil *File (open files with safetensors.Open)"}

// Keys lists the tensors' names, sorted.
func (f *File) Keys() []string {
	if f == nil {
		return nil
	}
	keys := make([]string, 0, len(f.entries))
	for k := range f.entries {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Metadata is a copy of the header's free-form __metadata__ (nil when
// absent).
func (f *File) Metadata() map[string]string {
	if f == nil {
		return nil
	}
	return maps.Clone(f.metadata)
}

// Tensor returns the named tensor as a view of the mapped file (a copy
// only when its bytes are not aligned to its element size). The view
// stays valid after Close, and after the file is replaced (see Open).
func (f *File) Tensor(name string) (*torch.Tensor, error) {
	if f == nil {
		return nil, errNilFile
	}
	e, ok := f.entries[name]
	if !ok {
		return nil, &Error{Path: f.path, Detail: fmt.Sprintf("no tensor named %q", name)}
	}
	if f.data == nil {
		return nil, &Error{Path: f.path, Detail: "the file is closed"}
	}
	dt := dtypes[e.DType]
	s, err := f.data.Slice(int(e.Offsets[0]), int(e.Offsets[1]-e.Offsets[0]))
	if err != nil {
		return nil, err
	}
	t := torch.FromStorage(torch.NewTypedStorage(s, dt), 0, append([]int(nil), e.Shape...), nil)
	if p, _ := s.DataPtr(); p%uintptr(dt.ItemSize()) != 0 {
		c := t.Clone()
		s.Release()
		t = c
	}
	return t, t.Err()
}

// Tensors returns every tensor by name (views, as Tensor).
func (f *File) Tensors() map[string]*torch.Tensor {
	if f == nil {
		return map[string]*torch.Tensor{}
	}
	out := make(map[string]*torch.Tensor, len(f.entries))
	for name := range f.entries {
		t, err := f.Tensor(name)
		if err != nil {
			t = torch.Failed(err)
		}
		out[name] = t
	}
	return out
}

// Close drops the file's own reference to the mapping: it is unmapped once
// the tensors taken from it are released or unreachable too.
func (f *File) Close() error {
	if f == nil {
		return errNilFile
	}
	if f.data != nil {
		f.data.Release()
		f.data = nil
	}
	return nil
}

// Load reads every tensor of the file into memory of its own, as
// safetensors.torch.load_file does: the tensors do not depend on the file
// afterwards, which may be replaced, truncated or deleted. A file changed
// while Load reads it is an error (or, if it still parses, its new data),
// never a crash. Open reads tensors lazily instead, from a mapping.
func Load(path string) (map[string]*torch.Tensor, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	h, err := readHeader(fh, path)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(h.entries))
	for name := range h.entries {
		names = append(names, name)
	}
	sort.Slice(names, func(i, j int) bool { return h.entries[names[i]].Offsets[0] < h.entries[names[j]].Offsets[0] })
	out := make(map[string]*torch.Tensor, len(names))
	buf := make([]byte, min(loadChunk, h.dataLen))
	for _, name := range names {
		t, err := readTensor(fh, h.dataStart, h.entries[name], buf)
		if err != nil {
			for _, t := range out {
				t.Release()
			}
			return nil, &Error{Path: path, Detail: fmt.Sprintf("reading tensor %q: %v", name, err)}
		}
		out[name] = t
	}
	return out, nil
}

// loadChunk is how many bytes Load reads at a time.
const loadChunk = 4 << 20

// readTensor reads the tensor of e (its offsets count from byte base of fh)
// into a new tensor, through buf.
func readTensor(fh *os.File, base int64, e entry, buf []byte) (*torch.Tensor, error) {
	n := int(e.Offsets[1] - e.Offsets[0])
	dst := torch.Empty([]int{n}, torch.WithDType(torch.Uint8))
	for off := 0; off < n && dst.Err() == nil; {
		k := min(n-off, len(buf))
		if _, err := fh.ReadAt(buf[:k], base+e.Offsets[0]+int64(off)); err != nil {
			dst.Release()
			return nil, err
		}
		src := torch.FromSlice(buf[:k])
		if err := dst.Narrow(0, off, k).Copy_(src).Err(); err != nil {
			dst.Release()
			return nil, err
		}
		src.Release()
		off += k
	}
	if err := dst.Err(); err != nil {
		return nil, err
	}
	s := torch.NewTypedStorage(dst.UntypedStorage(), dtypes[e.DType])
	t := torch.FromStorage(s, 0, append([]int(nil), e.Shape...), nil)
	return t, t.Err()
}

// beforeRename, when set (by tests), runs after Save has written and synced
// the temporary file tmp and before it renames it over the target; an error
// stops Save there, as a crash would.
var beforeRename func(tmp string) error

// Save writes tensors (any device, any layout; they are copied to the host
// in row-major order) and optional metadata to path, tensors in name order,
// the header padded to 8 bytes so that every tensor's data is aligned.
//
// Save never writes into an existing file: it writes a temporary file next
// to path, syncs it to the disk and renames it over path (over the file a
// symbolic link at path points to, keeping the link), so that path holds
// either its old contents or the new ones, even after a crash, and tensors
// that Open mapped from the old file keep their data. The directory must
// therefore be writable. On an error (a failed tensor, a full disk) path is
// left as it was and no temporary file is left behind.
func Save(path string, tensors map[string]*torch.Tensor, metadata map[string]string) error {
	names := make([]string, 0, len(tensors))
	for name, t := range tensors {
		if err := t.Err(); err != nil {
			return fmt.Errorf("safetensors: saving %s: tensor %q: %w", path, name, err)
		}
		if name == "__metadata__" || strings.TrimSpace(name) == "" {
			return &Error{Path: path, Detail: fmt.Sprintf("invalid tensor name %q", name)}
		}
		if dtypeName(t.DType()) == "" {
			return &Error{Path: path, Detail: fmt.Sprintf("tensor %q: dtype %s has no safetensors name", name, t.DType())}
		}
		if t.IsMeta() {
			return fmt.Errorf("safetensors: saving %s: tensor %q: %w", path, name, torch.NewError("save", torch.ErrDevice,
				[]*torch.Tensor{t}, "a meta tensor has no data to save"))
		}
		names = append(names, name)
	}
	sort.Strings(names)
	header := map[string]any{}
	if len(metadata) > 0 {
		header["__metadata__"] = metadata
	}
	var at int64
	for _, name := range names {
		t := tensors[name]
		n := int64(t.Numel() * t.ElementSize())
		shape := append([]int{}, t.Shape()...)
		header[name] = entry{DType: dtypeName(t.DType()), Shape: shape, Offsets: [2]int64{at, at + n}}
		at += n
	}
	raw, err := json.Marshal(header)
	if err != nil {
		return fmt.Errorf("safetensors: saving %s: %w", path, err)
	}
	for len(raw)%8 != 0 {
		raw = append(raw, ' ')
	}
	target := path
	if real, err := filepath.EvalSymlinks(path); err == nil {
		target = real
	}
	tmp, err := writeTemp(target, raw, names, tensors)
	if err == nil && beforeRename != nil {
		err = beforeRename(tmp)
	}
	if err == nil {
		err = os.Rename(tmp, target)
	}
	if err != nil {
		if tmp != "" {
			os.Remove(tmp)
		}
		return fmt.Errorf("safetensors: saving %s: %w", path, err)
	}
	if d, err := os.Open(filepath.Dir(target)); err == nil {
		d.Sync() // best effort: makes the rename itself durable
		d.Close()
	}
	return nil
}

// writeTemp writes the file (the header raw, then the tensors' data in the
// order of names) to a new temporary file next to target, syncs and closes
// it, and returns its name. On an error the name of a temporary file still
// to be removed is returned with it ("" if none was created).
func writeTemp(target string, raw []byte, names []string, tensors map[string]*torch.Tensor) (string, error) {
	out, err := createTemp(filepath.Dir(target), filepath.Base(target))
	if err != nil {
		return "", err
	}
	if st, err := os.Stat(target); err == nil && st.Mode().IsRegular() {
		out.Chmod(st.Mode().Perm()) // best effort: keep the mode of the file replaced
	}
	w := bufio.NewWriterSize(out, 1<<20)
	var head [8]byte
	binary.LittleEndian.PutUint64(head[:], uint64(len(raw)))
	w.Write(head[:])
	w.Write(raw)
	for _, name := range names {
		b, err := hostBytes(tensors[name])
		if err != nil {
			out.Close()
			return out.Name(), fmt.Errorf("tensor %q: %w", name, err)
		}
		w.Write(b)
	}
	err = w.Flush()
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return out.Name(), err
}

// createTemp creates a new file named "."+base+".tmp-" and a random suffix
// in dir, as os.CreateTemp does, but with the mode os.Create gives (0666
// less the umask) rather than 0600.
func createTemp(dir, base string) (*os.File, error) {
	pattern := filepath.Join(dir, "."+base+".tmp-")
	for range 100 {
		f, err := os.OpenFile(pattern+strconv.FormatUint(rand.Uint64(), 36), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, &fs.PathError{Op: "createtemp", Path: pattern + "*", Err: fs.ErrExist}
}

// hostBytes is t's data in row-major order on the host.
func hostBytes(t *torch.Tensor) ([]byte, error) {
	c, err := t.To("cpu")
	if err != nil {
		return nil, err
	}
	c = c.Contiguous()
	if err := c.Err(); err != nil {
		return nil, err
	}
	u, err := c.UntypedStorage().Slice(c.StorageOffset()*c.ElementSize(), c.Numel()*c.ElementSize())
	if err != nil {
		return nil, err
	}
	return u.Tolist()
}
