package nn_test

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/nn"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// TestForwardHooks checks PyTorch's hook semantics: pre-hooks run in
// order and may replace the input, hooks see the input Forward got and
// may replace the output, in order; Remove takes a hook off (twice does
// nothing); Sequential calls its layers through Call; Forward alone runs
// no hook.
func TestForwardHooks(t *testing.T) {
	torch.ManualSeed(0)
	fc1, fc2 := nn.NewLinear(3, 4), nn.NewLinear(4, 2)
	model := nn.NewSequential(fc1, nn.ReLU(), fc2)
	x := torch.Randn([]int{2, 3})
	var order []string
	h1, err := nn.RegisterForwardPreHook(fc2, func(m nn.Module, in *torch.Tensor) *torch.Tensor {
		order = append(order, "pre1")
		return in.MulScalar(2)
	})
	if err != nil {
		t.Fatal(err)
	}
	_, _ = nn.RegisterForwardPreHook(fc2, func(m nn.Module, in *torch.Tensor) *torch.Tensor {
		order = append(order, "pre2")
		return nil
	})
	var seen *torch.Tensor
	h3, _ := nn.RegisterForwardHook(fc1, func(m nn.Module, in, out *torch.Tensor) *torch.Tensor {
		order = append(order, "fc1")
		if m != nn.Module(fc1) || in != x {
			t.Errorf("hook called with %v and another input", m)
		}
		return out.AddScalar(1)
	})
	_, _ = nn.RegisterForwardHook(fc1, func(m nn.Module, in, out *torch.Tensor) *torch.Tensor {
		order = append(order, "fc1b")
		seen = out
		return nil
	})
	_, _ = nn.RegisterForwardHook(model, func(m nn.Module, in, out *torch.Tensor) *torch.Tensor {
		order = append(order, "model")
		return out.Neg()
	})

	y := nn.Call(model, x)
	want := fc2.Forward(fc1.Forward(x).AddScalar(1).Relu().MulScalar(2)).Neg()
	expectEqual(t, "hooked", y, want)
	expectEqual(t, "second hook's view", seen, fc1.Forward(x).AddScalar(1))
	if !slices.Equal(order, []string{"fc1", "fc1b", "pre1", "pre2", "model"}) {
		t.Errorf("order %v", order)
	}

	// Forward runs the children's hooks through Sequential, not its own.
	order = nil
	expectEqual(t, "Forward", model.Forward(x), want.Neg())
	if !slices.Equal(order, []string{"fc1", "fc1b", "pre1", "pre2"}) {
		t.Errorf("order %v", order)
	}

	h1.Remove()
	h1.Remove()
	h3.Remove()
	order = nil
	expectEqual(t, "after Remove", model.Forward(x), fc2.Forward(fc1.Forward(x).Relu()))
	if !slices.Equal(order, []string{"fc1b", "pre2"}) {
		t.Errorf("order after Remove %v", order)
	}

	if _, err := nn.RegisterForwardHook(fc1, nil); err == nil {
		t.Error("nil hook accepted")
	}
	if _, err := nn.RegisterForwardPreHook((*nn.Linear)(nil), func(nn.Module, *torch.Tensor) *torch.Tensor { return nil }); err == nil {
		t.Error("hook on a nil module accepted")
	}
	if nn.Call(nil, x).Err() == nil {
		t.Error("Call of a nil layer")
	}
}

// TestHookRemovesItself checks that a hook removed while the hooks run
// still runs in that call and not in the next, as in PyTorch.
func TestHookRemovesItself(t *testing.T) {
	relu := nn.ReLU()
	calls := 0
	var h *nn.HookHandle
	h, _ = nn.RegisterForwardHook(relu, func(nn.Module, *torch.Tensor, *torch.Tensor) *torch.Tensor {
		calls++
		h.Remove()
		return nil
	})
	x := torch.Ones([]int{2})
	nn.Call(relu, x)
	nn.Call(relu, x)
	if calls != 1 {
		t.Errorf("%d calls", calls)
	}
}

func expectEqual(t *testing.T, what string, got, want *torch.Tensor) {
	t.Helper()
	if ok, err := torch.AllCloseErr(got, want, 0, 0, false); !ok || err != nil {
		t.Errorf("%s: %v, want %v (%v)", what, got, want, err)
	}
}

// Forward hooks capture a layer's output as the model runs, as PyTorch's
// register_forward_hook; the handle removes the hook.
func ExampleRegisterForwardHook() {
	torch.ManualSeed(0)
	model := nn.NewSequential(nn.NewLinear(3, 4), nn.ReLU(), nn.NewLinear(4, 2))
	var features *torch.Tensor
	h, err := nn.RegisterForwardHook(model.Layers[1], func(m nn.Module, x, y *torch.Tensor) *torch.Tensor {
		features = y
		return nil // keep the output
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	out := model.Forward(torch.Ones([]int{5, 3}))
	fmt.Println(out.Shape(), "features", features.Shape())
	h.Remove()
	// Output:
	// [5 2] features [5 4]
}

// TestHooksWhileCalled registers and removes hooks while other goroutines
// call the module (run under -race): each call sees a whole set of hooks,
// and a call after every handle is removed runs none.
func TestHooksWhileCalled(t *testing.T) {
	torch.ManualSeed(0)
	fc := nn.NewLinear(3, 2)
	x := torch.Randn([]int{4, 3})
	var calls atomic.Int64
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				if err := nn.Call(fc, x).Err(); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	for range 50 {
		h, err := nn.RegisterForwardHook(fc, func(m nn.Module, in, out *torch.Tensor) *torch.Tensor {
			calls.Add(1)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		h.Remove()
	}
	wg.Wait()
	before := calls.Load()
	nn.Call(fc, x)
	if after := calls.Load(); after != before {
		t.Errorf("a removed hook ran: %d calls, then %d", before, after)
	}
}
