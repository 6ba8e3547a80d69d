package conformance

import "github.com/mindtorch/mindtorch/pkg/torch"

// ApplyView runs one view op of a golden description: [name, args...],
// e.g. ["transpose", 0, 1] or ["slice", dim, start, end, step].
func ApplyView(t *torch.Tensor, op []any) *torch.Tensor {
	a := Ints(op[1:])
	switch op[0].(string) {
	case "view":
		return t.View(a...)
	case "reshape":
		return t.Reshape(a...)
	case "transpose":
		return t.Transpose(a[0], a[1])
	case "permute":
		return t.Permute(a...)
	case "t":
		return t.T()
	case "mT":
		return t.MT()
	case "squeeze":
		if len(a) == 0 {
			return t.Squeeze()
		}
		return t.SqueezeDim(a[0])
	case "unsqueeze":
		return t.Unsqueeze(a[0])
	case "expand":
		return t.Expand(a...)
	case "narrow":
		return t.Narrow(a[0], a[1], a[2])
	case "select":
		return t.Select(a[0], a[1])
	case "slice":
		return t.Slice(a[0], a[1], a[2], a[3])
	case "flatten":
		return t.Flatten(a[0], a[1])
	case "unflatten":
		return t.Unflatten(a[0], a[1:]...)
	case "as_strided":
		return t.AsStrided(Ints(op[1].([]any)), Ints(op[2].([]any)), int(Num(op[3])))
	case "chunk":
		parts, err := t.Chunk(a[0], a[1])
		if err != nil {
			panic(err)
		}
		return parts[a[2]]
	case "split":
		parts, err := t.Split(a[0], a[1])
		if err != nil {
			panic(err)
		}
		return parts[a[2]]
	case "unbind":
		parts, err := t.Unbind(a[0])
		if err != nil {
			panic(err)
		}
		return parts[a[1]]
	case "contiguous":
		return t.Contiguous()
	}
	panic("unknown op " + op[0].(string))
}
