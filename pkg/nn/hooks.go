package nn

import (
	"slices"
	"sync"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// ForwardPreHook is called with a module and its input before its Forward
// runs, as PyTorch's forward pre-hook; it returns the input to use
// instead, or nil to keep x.
type ForwardPreHook func(m Module, x *torch.Tensor) *torch.Tensor

// ForwardHook is called with a module, its input and its output after its
// Forward ran, as PyTorch's forward hook; it returns the output to use
// instead, or nil to keep y.
type ForwardHook func(m Module, x, y *torch.Tensor) *torch.Tensor

// hooks are a module's forward hooks, in registration order. A module holds
// them as an immutable snapshot that registration replaces (under hookMu),
// so that goroutines calling the module while another registers or removes
// a hook each see one whole set.
type hooks struct {
	next int // the id of the next hook
	pre  []preHook
	post []postHook
}

type preHook struct {
	id int
	fn ForwardPreHook
}

type postHook struct {
	id int
	fn ForwardHook
}

// hookMu serialises the changes of every module's hooks.
var hookMu sync.Mutex

// HookHandle removes the hook it was returned for, as PyTorch's
// RemovableHandle.
type HookHandle struct {
	b  *Base
	id int
}

// Remove takes the hook off its module; removing it again does nothing.
func (h *HookHandle) Remove() {
	if h == nil {
		return
	}
	hookMu.Lock()
	defer hookMu.Unlock()
	if h.b == nil {
		return
	}
	if old := h.b.hooks.Load(); old != nil {
		hs := *old
		hs.pre = slices.DeleteFunc(slices.Clone(old.pre), func(p preHook) bool { return p.id == h.id })
		hs.post = slices.DeleteFunc(slices.Clone(old.post), func(p postHook) bool { return p.id == h.id })
		h.b.hooks.Store(&hs)
	}
	h.b = nil
}

// RegisterForwardPreHook adds hook to m, called by Call before m's Forward
// (after the pre-hooks registered before it), as PyTorch's
// register_forward_pre_hook. It is safe while other goroutines call m: a
// call sees the hooks from before or after the registration, whole.
func RegisterForwardPreHook(m Module, hook ForwardPreHook) (*HookHandle, error) {
	return addHook(m, "register_forward_pre_hook", hook == nil, func(hs *hooks, id int) {
		hs.pre = append(slices.Clone(hs.pre), preHook{id, hook})
	})
}

// RegisterForwardHook adds hook to m, called by Call after m's Forward
// with the input Forward got and its output (as changed by the hooks
// registered before it), as PyTorch's register_forward_hook.
func RegisterForwardHook(m Module, hook ForwardHook) (*HookHandle, error) {
	return addHook(m, "register_forward_hook", hook == nil, func(hs *hooks, id int) {
		hs.post = append(slices.Clone(hs.post), postHook{id, hook})
	})
}

// addHook replaces m's hooks by a copy to which add has added one hook.
func addHook(m Module, op string, nilHook bool, add func(hs *hooks, id int)) (*HookHandle, error) {
	b := baseOf(m)
	switch {
	case b == nil:
		return nil, errNilModule(op)
	case nilHook:
		return nil, torch.NewError(op, torch.ErrArgument, nil, "the hook is nil")
	}
	hookMu.Lock()
	defer hookMu.Unlock()
	var hs hooks
	if old := b.hooks.Load(); old != nil {
		hs = *old
	}
	hs.next++
	add(&hs, hs.next)
	b.hooks.Store(&hs)
	return &HookHandle{b, hs.next}, nil
}

// Call applies m to x as PyTorch's module(x) does: m's forward pre-hooks,
// its Forward, then its forward hooks. Forward alone, as PyTorch's
// module.forward(x), runs no hook; Sequential calls its layers through
// Call, and a module of one's own that calls its submodules through Call
// runs their hooks too.
func Call(m Layer, x *torch.Tensor) *torch.Tensor {
	if isNil(m) {
		return nilModule("call", "Layer", x)
	}
	b := baseOf(m)
	var hs *hooks
	if b != nil {
		hs = b.hooks.Load()
	}
	if hs == nil || len(hs.pre)+len(hs.post) == 0 {
		return m.Forward(x)
	}
	// The snapshot is immutable: a hook that removes itself or adds another
	// changes the next call, not this one, as in PyTorch.
	for _, h := range hs.pre {
		if r := h.fn(m, x); r != nil {
			x = r
		}
	}
	y := m.Forward(x)
	for _, h := range hs.post {
		if r := h.fn(m, x, y); r != nil {
			y = r
		}
	}
	return y
}
