package torch

import (
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/mindtorch/mindtorch/pkg/dtype"
)

// PrintOption changes how tensors print (see SetPrintOptions).
type PrintOption func(*printOptions)

type printOptions struct {
	precision int
	threshold float64
	edgeItems int
	lineWidth int
	sciMode   *bool
}

var (
	printMu   sync.RWMutex
	printOpts = defaultPrintOptions()
)

func defaultPrintOptions() printOptions {
	return printOptions{precision: 4, threshold: 1000, edgeItems: 3, lineWidth: 80}
}

// PrintProfile sets every option from a profile: "default" (precision 4,
// threshold 1000, 3 edge items, 80 columns), "short" (precision 2, 2 edge
// items) or "full" (no summarising).
func PrintProfile(name string) PrintOption {
	return func(o *printOptions) {
		switch name {
		case "default":
			o.precision, o.threshold, o.edgeItems, o.lineWidth = 4, 1000, 3, 80
		case "short":
			o.precision, o.threshold, o.edgeItems, o.lineWidth = 2, 1000, 2, 80
		case "full":
			o.precision, o.threshold, o.edgeItems, o.lineWidth = 4, math.Inf(1), 3, 80
		}
	}
}

// PrintPrecision sets the digits after the decimal point of floats.
func PrintPrecision(n int) PrintOption { return func(o *printOptions) { o.precision = n } }

// PrintThreshold sets the element count above which tensors print summarised.
func PrintThreshold(n float64) PrintOption { return func(o *printOptions) { o.threshold = n } }

// PrintEdgeItems sets how many items of each end a summarised dim shows.
func PrintEdgeItems(n int) PrintOption { return func(o *printOptions) { o.edgeItems = n } }

// PrintLineWidth sets the characters per line.
func PrintLineWidth(n int) PrintOption { return func(o *printOptions) { o.lineWidth = n } }

// PrintSciMode forces scientific notation on or off (without this option
// SetPrintOptions restores the automatic choice, as PyTorch does).
func PrintSciMode(on bool) PrintOption { return func(o *printOptions) { o.sciMode = &on } }

// SetPrintOptions sets how tensors print, as torch.set_printoptions:
// options not given keep their values, except sci_mode, which returns to
// automatic unless PrintSciMode is given. It is a process-wide setting.
func SetPrintOptions(opts ...PrintOption) {
	printMu.Lock()
	defer printMu.Unlock()
	printOpts.sciMode = nil
	for _, f := range opts {
		if f != nil {
			f(&printOpts)
		}
	}
}

// String prints t as PyTorch's repr does: tensor([...]) with dtype, device,
// requires_grad and grad_fn suffixes where they are not the default.
func (t *Tensor) String() string {
	if t == nil {
		return "tensor(<nil>)"
	}
	if t.err != nil {
		return "tensor(<error: " + t.err.Error() + ">)"
	}
	printMu.RLock()
	o := printOpts
	printMu.RUnlock()

	const prefix = "tensor("
	indent := len(prefix)
	var suffixes []string
	if t.Device().Type != 0 {
		suffixes = append(suffixes, "device='"+t.Device().String()+"'")
	}
	def := dtype.Default()
	var body string
	switch {
	case t.IsMeta():
		suffixes = append(suffixes, "size="+pyTuple(t.shape))
		if t.dtype != def {
			suffixes = append(suffixes, "dtype="+t.dtype.String())
		}
		body = "..."
	case t.Numel() == 0:
		if t.Dim() != 1 {
			suffixes = append(suffixes, "size="+pyTuple(t.shape))
		}
		if t.dtype != def {
			suffixes = append(suffixes, "dtype="+t.dtype.String())
		}
		body = "[]"
	default:
		if t.dtype != def && t.dtype != Int64 && t.dtype != Bool {
			suffixes = append(suffixes, "dtype="+t.dtype.String())
		}
		s, err := tensorStr(t, indent, &o)
		if err != nil {
			return "tensor(<error: " + err.Error() + ">)"
		}
		body = s
	}
	if name := t.gradFnName(); name != "" {
		suffixes = append(suffixes, "grad_fn=<"+name+">")
	} else if t.requiresGrad {
		suffixes = append(suffixes, "requires_grad=True")
	}
	return addSuffixes(prefix+body, suffixes, indent, o.lineWidth)
}

// gradFnName is the name of the node that made t ("" for leaves).
func (t *Tensor) gradFnName() string {
	if t.gradFn == nil {
		return ""
	}
	return t.gradFn.Name()
}

func pyTuple(s []int) string {
	var b strings.Builder
	b.WriteByte('(')
	for i, v := range s {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(v))
	}
	if len(s) == 1 {
		b.WriteByte(',')
	}
	b.WriteByte(')')
	return b.String()
}

func addSuffixes(s string, suffixes []string, indent, lineWidth int) string {
	var b strings.Builder
	b.WriteString(s)
	last := len(s) - strings.LastIndexByte(s, '\n') + 1
	if strings.LastIndexByte(s, '\n') < 0 {
		last = len(s) + 2 // Python's rfind gives -1
	}
	for _, suf := range suffixes {
		if last+len(suf)+2 > lineWidth {
			b.WriteString(",\n" + strings.Repeat(" ", indent) + suf)
			last = indent + len(suf)
		} else {
			b.WriteString(", " + suf)
			last += len(suf) + 2
		}
	}
	b.WriteByte(')')
	return b.String()
}

// printData is a tensor's values on the host, row-major.
type printData struct {
	shape   []int
	strides []int
	floats  []float64 // floating dtypes
	ints    []int64   // integer dtypes
	bools   []bool
	isFloat bool
	isBool  bool
}

func tensorStr(t *Tensor, indent int, o *printOptions) (string, error) {
	d := printData{shape: t.shape, strides: contiguousStrides(t.shape), isFloat: t.dtype.IsFloatingPoint(), isBool: t.dtype == Bool}
	var err error
	switch {
	case d.isFloat:
		if t.dtype == Float64 {
			d.floats, err = ToSlice[float64](t)
		} else {
			var f []float32
			f, err = ToSlice[float32](t)
			d.floats = make([]float64, len(f))
			for i, v := range f {
				d.floats[i] = float64(v)
			}
		}
	case d.isBool:
		d.bools, err = ToSlice[bool](t)
	default:
		d.ints, err = ToSlice[int64](t)
	}
	if err != nil {
		return "", err
	}
	summarize := float64(t.Numel()) > o.threshold
	var idx []int
	if summarize {
		idx = summarized(&d, 0, 0, o.edgeItems, nil)
	} else {
		idx = make([]int, t.Numel())
		for i := range idx {
			idx[i] = i
		}
	}
	f := newFormatter(&d, idx, o)
	return d.str(0, 0, indent, summarize, f, o), nil
}

func contiguousStrides(shape []int) []int {
	s := make([]int, len(shape))
	acc := 1
	for i := len(shape) - 1; i >= 0; i-- {
		s[i] = acc
		acc *= shape[i]
	}
	return s
}

// summarized lists the flat indices get_summarized_data keeps.
func summarized(d *printData, dim, off, edge int, out []int) []int {
	nd := len(d.shape)
	if nd == 0 {
		return append(out, off)
	}
	n, st := d.shape[dim], d.strides[dim]
	if dim == nd-1 {
		if n > 2*edge {
			for i := 0; i < edge; i++ {
				out = append(out, off+i*st)
			}
			for i := n - edge; i < n; i++ {
				out = append(out, off+i*st)
			}
			return out
		}
		for i := range n {
			out = append(out, off+i*st)
		}
		return out
	}
	if edge == 0 {
		return out
	}
	if n > 2*edge {
		for i := 0; i < edge; i++ {
			out = summarized(d, dim+1, off+i*st, edge, out)
		}
		for i := n - edge; i < n; i++ {
			out = summarized(d, dim+1, off+i*st, edge, out)
		}
		return out
	}
	for i := range n {
		out = summarized(d, dim+1, off+i*st, edge, out)
	}
	return out
}

// formatter is PyTorch's _Formatter: one width and one notation for all
// the elements printed.
type formatter struct {
	d        *printData
	intMode  bool
	sciMode  bool
	maxWidth int
	prec     int
}

func newFormatter(d *printData, idx []int, o *printOptions) *formatter {
	f := &formatter{d: d, intMode: true, maxWidth: 1, prec: o.precision}
	switch {
	case d.isBool:
		for _, i := range idx {
			f.maxWidth = max(f.maxWidth, len(pyBool(d.bools[i])))
		}
	case !d.isFloat:
		for _, i := range idx {
			f.maxWidth = max(f.maxWidth, len(strconv.FormatInt(d.ints[i], 10)))
		}
	default:
		var vals []float64
		for _, i := range idx {
			v := d.floats[i]
			if v != 0 && !math.IsInf(v, 0) && !math.IsNaN(v) {
				vals = append(vals, v)
			}
		}
		if len(vals) > 0 {
			lo, hi := math.Inf(1), 0.0
			for _, v := range vals {
				a := math.Abs(v)
				lo, hi = math.Min(lo, a), math.Max(hi, a)
				if v != math.Ceil(v) {
					f.intMode = false
				}
			}
			if f.intMode {
				if hi/lo > 1000 || hi > 1e8 {
					f.sciMode = true
					for _, v := range vals {
						f.maxWidth = max(f.maxWidth, len(pyFloat(v, 'e', f.prec)))
					}
				} else {
					for _, v := range vals {
						f.maxWidth = max(f.maxWidth, len(pyFloat(v, 'f', 0))+1)
					}
				}
			} else if hi/lo > 1000 || hi > 1e8 || lo < 1e-4 {
				f.sciMode = true
				for _, v := range vals {
					f.maxWidth = max(f.maxWidth, len(pyFloat(v, 'e', f.prec)))
				}
			} else {
				for _, v := range vals {
					f.maxWidth = max(f.maxWidth, len(pyFloat(v, 'f', f.prec)))
				}
			}
		}
	}
	if o.sciMode != nil {
		f.sciMode = *o.sciMode
	}
	return f
}

func (f *formatter) format(i int) string {
	var s string
	switch {
	case f.d.isBool:
		s = pyBool(f.d.bools[i])
	case !f.d.isFloat:
		s = strconv.FormatInt(f.d.ints[i], 10)
	default:
		v := f.d.floats[i]
		switch {
		case f.sciMode:
			s = pyFloat(v, 'e', f.prec)
		case f.intMode:
			s = pyFloat(v, 'f', 0)
			if !math.IsInf(v, 0) && !math.IsNaN(v) {
				s += "."
			}
		default:
			s = pyFloat(v, 'f', f.prec)
		}
	}
	if pad := f.maxWidth - len(s); pad > 0 {
		s = strings.Repeat(" ", pad) + s
	}
	return s
}

func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

// pyFloat formats v as Python's format with 'f' or 'e' and a precision.
func pyFloat(v float64, verb byte, prec int) string {
	switch {
	case math.IsNaN(v):
		return "nan"
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	}
	return strconv.FormatFloat(v, verb, prec, 64)
}

func (d *printData) str(dim, off, indent int, summarize bool, f *formatter, o *printOptions) string {
	nd := len(d.shape)
	if nd == 0 {
		return f.format(off)
	}
	n, st := d.shape[dim], d.strides[dim]
	edge := o.edgeItems
	if dim == nd-1 {
		perLine := max(1, (o.lineWidth-indent)/(f.maxWidth+2))
		var items []string
		switch {
		case summarize && edge == 0:
			items = []string{"..."}
		case summarize && n > 2*edge:
			for i := 0; i < edge; i++ {
				items = append(items, f.format(off+i*st))
			}
			items = append(items, " ...")
			for i := n - edge; i < n; i++ {
				items = append(items, f.format(off+i*st))
			}
		default:
			for i := range n {
				items = append(items, f.format(off+i*st))
			}
		}
		var lines []string
		for i := 0; i < len(items); i += perLine {
			lines = append(lines, strings.Join(items[i:min(i+perLine, len(items))], ", "))
		}
		return "[" + strings.Join(lines, ",\n"+strings.Repeat(" ", indent+1)) + "]"
	}
	var parts []string
	if summarize && n > 2*edge {
		for i := 0; i < edge; i++ {
			parts = append(parts, d.str(dim+1, off+i*st, indent+1, summarize, f, o))
		}
		parts = append(parts, "...")
		for i := n - edge; i < n; i++ {
			parts = append(parts, d.str(dim+1, off+i*st, indent+1, summarize, f, o))
		}
	} else {
		for i := range n {
			parts = append(parts, d.str(dim+1, off+i*st, indent+1, summarize, f, o))
		}
	}
	sep := "," + strings.Repeat("\n", nd-dim-1) + strings.Repeat(" ", indent+1)
	return "[" + strings.Join(parts, sep) + "]"
}
