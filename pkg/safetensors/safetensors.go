// Package safetensors reads and writes the safetensors format: an 8-byte
// little-endian header length, a JSON header naming each tensor's dtype,
// shape and byte range, then the data. Open maps the file and makes
// tensors that view the mapping, so opening a file of any size reads only
// its header; Save writes tensors in the format.
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
	"fmt"
	"math"
	"os"
	"sort"
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

// File is an open safetensors file: its header, and the mapping its
// tensors view.
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

// Open maps the file at path privately (copy-on-write: writes into its
// tensors never reach the file) and checks its header.
func Open(path string) (*File, error) {
	bad := func(format string, args ...any) (*File, error) {
		return nil, &Error{Path: path, Detail: fmt.Sprintf(format, args...)}
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	var head [8]byte
	_, err = fh.ReadAt(head[:], 0)
	st, serr := fh.Stat()
	if err != nil || serr != nil {
		fh.Close()
		return bad("too short for a header")
	}
	n := binary.LittleEndian.Uint64(head[:])
	size := st.Size()
	if n > maxHeader || int64(n) > size-8 {
		fh.Close()
		return bad("header length %d does not fit a file of %d bytes", n, size)
	}
	raw := make([]byte, n)
	_, err = fh.ReadAt(raw, 8)
	fh.Close()
	if err != nil {
		return bad("reading the header: %v", err)
	}
	if len(raw) == 0 || raw[0] != '{' {
		return bad("the header is not a JSON object")
	}
	var header map[string]json.RawMessage
	if err := json.Unmarshal(raw, &header); err != nil {
		return bad("header: %v", err)
	}
	f := &File{path: path, entries: map[string]entry{}}
	if m, ok := header["__metadata__"]; ok {
		if err := json.Unmarshal(m, &f.metadata); err != nil {
			return bad("__metadata__ must map strings to strings: %v", err)
		}
		delete(header, "__metadata__")
	}
	dataLen := size - 8 - int64(n)
	for name, msg := range header {
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
		if begin < 0 || end < begin || end > dataLen {
			return bad("tensor %q: data offsets [%d, %d) outside the %d data bytes", name, begin, end, dataLen)
		}
		if numel > math.MaxInt64/int64(dt.ItemSize()) || end-begin != numel*int64(dt.ItemSize()) {
			return bad("tensor %q: %d bytes for %s %v", name, end-begin, e.DType, e.Shape)
		}
		f.entries[name] = e
	}
	whole, err := torch.UntypedStorageFromFile(path, false, int(size))
	if err != nil {
		return nil, err
	}
	f.data, err = whole.Slice(8+int(n), int(dataLen))
	whole.Release()
	if err != nil {
		return nil, err
	}
	return f, nil
}

// Keys lists the tensors' names, sorted.
func (f *File) Keys() []string {
	keys := make([]string, 0, len(f.entries))
	for k := range f.entries {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Metadata is the header's free-form __metadata__ (nil when absent).
func (f *File) Metadata() map[string]string { return f.metadata }

// Tensor returns the named tensor as a view of the mapped file (a copy
// only when its bytes are not aligned to its element size). The view
// stays valid after Close.
func (f *File) Tensor(name string) (*torch.Tensor, error) {
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
	if f.data != nil {
		f.data.Release()
		f.data = nil
	}
	return nil
}

// Load opens the file and returns all its tensors (views of the mapping).
func Load(path string) (map[string]*torch.Tensor, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ts := f.Tensors()
	for _, t := range ts {
		if err := t.Err(); err != nil {
			return nil, err
		}
	}
	return ts, nil
}

// Save writes tensors (any device, any layout; they are copied to the host
// in row-major order) and optional metadata to path, tensors in name order,
// the header padded to 8 bytes so that every tensor's data is aligned. The
// error of a failed tensor is returned and nothing is written.
func Save(path string, tensors map[string]*torch.Tensor, metadata map[string]string) error {
	names := make([]string, 0, len(tensors))
	for name, t := range tensors {
		if err := t.Err(); err != nil {
			return fmt.Errorf("safetensors: saving %q: %w", name, err)
		}
		if name == "__metadata__" || strings.TrimSpace(name) == "" {
			return &Error{Path: path, Detail: fmt.Sprintf("invalid tensor name %q", name)}
		}
		if dtypeName(t.DType()) == "" {
			return &Error{Path: path, Detail: fmt.Sprintf("tensor %q: dtype %s has no safetensors name", name, t.DType())}
		}
		if t.IsMeta() {
			return fmt.Errorf("safetensors: saving %q: %w", name, torch.NewError("save", torch.ErrDevice, []*torch.Tensor{t},
				"a meta tensor has no data to save"))
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
		return err
	}
	for len(raw)%8 != 0 {
		raw = append(raw, ' ')
	}
	out, err := os.Create(path)
	if err != nil {
		return err
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
			os.Remove(path)
			return fmt.Errorf("safetensors: saving %q: %w", name, err)
		}
		w.Write(b)
	}
	if err := w.Flush(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
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
