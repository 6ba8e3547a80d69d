package badinput

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"

	"github.com/mindtorch/mindtorch/pkg/nn"
	"github.com/mindtorch/mindtorch/pkg/optim"
	"github.com/mindtorch/mindtorch/pkg/safetensors"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// want is a case whose call must fail (PyTorch raises).
func want(name string, call func() []reflect.Value) badCase {
	return badCase{name, func() outcome { return expectError(call()) }}
}

// allow is a case whose input PyTorch accepts: any answer short of a panic
// passes (the note shows it).
func allow(name string, call func() []reflect.Value) badCase {
	return badCase{name, func() outcome { return accept(call()) }}
}

// wantValid is a case PyTorch answers with a tensor of dtype dt.
func wantValid(name string, dt torch.DType, call func() *torch.Tensor) badCase {
	return badCase{name, func() outcome {
		t := call()
		switch {
		case t == nil:
			return outcome{fail: "returned a nil *Tensor"}
		case t.Err() != nil:
			return outcome{fail: "PyTorch accepts this input, but got: " + t.Err().Error()}
		case t.DType() != dt:
			return outcome{fail: "returned " + describe(t) + ", PyTorch gives " + dt.String()}
		}
		return outcome{note: "returned " + describe(t)}
	}}
}

var null *torch.Tensor // a nil tensor, named for reading

func i64(v ...int64) *torch.Tensor { return torch.FromSlice(v) }

// toMeta is t on the meta device.
func toMeta(t *torch.Tensor) *torch.Tensor {
	m, err := t.To("meta")
	if err != nil {
		return torch.Failed(err)
	}
	return m
}

func onMeta() *torch.Tensor { return torch.Zeros([]int{2, 2}, torch.WithDevice("meta")) }

// specificCases are the cases of issue 17 and the bad values of each
// area: options, devices, dtypes, sizes, losses, optimizers, storages and
// files.
func specificCases() []badCase {
	var cs []badCase
	add := func(c ...badCase) { cs = append(cs, c...) }

	// The calls the issue names.
	add(
		want("issue/add_nil", func() []reflect.Value { return values(f32().Add(nil)) }),
		want("issue/nil_sum", func() []reflect.Value { return values(null.Sum()) }),
		allow("issue/nil_shape", func() []reflect.Value { return values(null.Shape()) }),
		want("issue/nil_item", func() []reflect.Value { return values2(null.Item()) }),
		want("issue/nil_toslice", func() []reflect.Value { return values2(torch.ToSlice[float32](null)) }),
		want("issue/nil_backward", func() []reflect.Value { return values(null.Backward()) }),
		want("issue/nil_to", func() []reflect.Value { return values2(null.To("cpu")) }),
		want("issue/copy_nil", func() []reflect.Value { return values(f32().Copy_(nil)) }),
		want("issue/allclose_nil", func() []reflect.Value { return values(torch.AllClose(nil, f32(), 1e-5, 1e-8, false)) }),
		want("issue/allcloseerr_nil", func() []reflect.Value {
			return values2(torch.AllCloseErr(nil, f32(), 1e-5, 1e-8, false))
		}),
		want("issue/equal_nil", func() []reflect.Value { return values(torch.Equal(f32(), nil)) }),
		want("issue/equalerr_nil", func() []reflect.Value { return values2(torch.EqualErr(f32(), nil)) }),
		want("issue/linear_nil_weight", func() []reflect.Value { return values(torch.Linear(f32(), nil, nil)) }),
		want("issue/mse_nil_target", func() []reflect.Value { return values(nn.MSE(f32(), nil)) }),
		want("issue/cross_entropy_nil_nil", func() []reflect.Value { return values(nn.CrossEntropy(nil, nil)) }),
		want("issue/linear_forward_nil", func() []reflect.Value { return values(nn.NewLinear(2, 2).Forward(nil)) }),
		allow("issue/statedict_nil", func() []reflect.Value { return values(nn.StateDict(nil)) }),
		want("issue/size_out_of_range", func() []reflect.Value { return values2(f32().Size(5)) }),
		want("issue/size_0dim", func() []reflect.Value { return values2(torch.Scalar(1.0).Size(0)) }),
		want("issue/parse_device_space", func() []reflect.Value { return values2(torch.ParseDevice(" cpu")) }),
		want("issue/parse_device_trailing_space", func() []reflect.Value { return values2(torch.ParseDevice("cpu ")) }),
		want("issue/parse_device_empty", func() []reflect.Value { return values2(torch.ParseDevice("")) }),
		want("issue/parse_device_cuda", func() []reflect.Value { return values2(torch.ParseDevice("cuda")) }),
		want("issue/parse_device_negative_index", func() []reflect.Value { return values2(torch.ParseDevice("npu:-1")) }),
		want("issue/with_device_space", func() []reflect.Value {
			return values(torch.Zeros([]int{2}, torch.WithDevice(" cpu")))
		}),
		want("issue/to_device_space", func() []reflect.Value { return values2(f32().To(" cpu")) }),
	)

	// Losses, validated as PyTorch validates their options.
	target := func() *torch.Tensor { return i64(0, 1) }
	add(
		want("loss/cross_entropy_label_smoothing_2", func() []reflect.Value {
			return values(nn.CrossEntropy(f32(), target(), nn.WithLabelSmoothing(2)))
		}),
		want("loss/cross_entropy_label_smoothing_-1", func() []reflect.Value {
			return values(nn.CrossEntropy(f32(), target(), nn.WithLabelSmoothing(-1)))
		}),
		want("loss/cross_entropy_label_smoothing_nan", func() []reflect.Value {
			return values(nn.CrossEntropy(f32(), target(), nn.WithLabelSmoothing(math.NaN())))
		}),
		wantValid("loss/cross_entropy_label_smoothing_1", torch.Float32, func() *torch.Tensor {
			return nn.CrossEntropy(f32(), target(), nn.WithLabelSmoothing(1))
		}),
		want("loss/cross_entropy_probabilities_label_smoothing_2", func() []reflect.Value {
			return values(nn.CrossEntropy(f32(), f32().Softmax(1), nn.WithLabelSmoothing(2)))
		}),
		want("loss/cross_entropy_weight_length", func() []reflect.Value {
			return values(nn.CrossEntropy(f32(), target(), nn.WithWeight(torch.Ones([]int{3}))))
		}),
		want("loss/cross_entropy_weight_2d", func() []reflect.Value {
			return values(nn.CrossEntropy(f32(), target(), nn.WithWeight(torch.Ones([]int{1, 2}))))
		}),
		want("loss/cross_entropy_weight_int64", func() []reflect.Value {
			return values(nn.CrossEntropy(f32(), target(), nn.WithWeight(i64(1, 1))))
		}),
		want("loss/cross_entropy_weight_meta", func() []reflect.Value {
			return values(nn.CrossEntropy(f32(), target(), nn.WithWeight(torch.Ones([]int{2}, torch.WithDevice("meta")))))
		}),
		want("loss/cross_entropy_weight_length_smoothing", func() []reflect.Value {
			return values(nn.CrossEntropy(f32(), target(), nn.WithWeight(torch.Ones([]int{5})), nn.WithLabelSmoothing(0.1)))
		}),
		want("loss/cross_entropy_probabilities_weight_length", func() []reflect.Value {
			return values(nn.CrossEntropy(f32(), f32().Softmax(1), nn.WithWeight(torch.Ones([]int{3}))))
		}),
		want("loss/nll_weight_length", func() []reflect.Value {
			return values(nn.NLL(f32().LogSoftmax(1), target(), nn.WithWeight(torch.Ones([]int{3}))))
		}),
		want("loss/nll_weight_failed", func() []reflect.Value {
			return values(nn.NLL(f32().LogSoftmax(1), target(), nn.WithWeight(f32().View(7))))
		}),
		want("loss/cross_entropy_target_out_of_range", func() []reflect.Value {
			return values(nn.CrossEntropy(f32(), i64(0, 9)))
		}),
		want("loss/cross_entropy_target_negative", func() []reflect.Value {
			return values(nn.CrossEntropy(f32(), i64(0, -3)))
		}),
		want("loss/cross_entropy_target_int32", func() []reflect.Value {
			return values(nn.CrossEntropy(f32(), target().ToDType(torch.Int32)))
		}),
		want("loss/cross_entropy_int_logits", func() []reflect.Value {
			return values(nn.CrossEntropy(i64(1, 2, 3, 4).View(2, 2), target()))
		}),
		want("loss/cross_entropy_0dim", func() []reflect.Value {
			return values(nn.CrossEntropy(torch.Scalar(1.0), torch.Scalar(int64(0))))
		}),
		want("loss/cross_entropy_probabilities_shape", func() []reflect.Value {
			return values(nn.CrossEntropy(f32(), torch.Ones([]int{2, 3})))
		}),
		want("loss/mse_meta_cpu_target", func() []reflect.Value { return values(nn.MSE(f32(), onMeta())) }),
		want("loss/mse_int64", func() []reflect.Value { return values(nn.MSE(i64(1, 2), i64(1, 2))) }),
		want("loss/l1_int64", func() []reflect.Value { return values(nn.L1(i64(1, 2), i64(1, 2))) }),
		wantValid("loss/mse_broadcast", torch.Float32, func() *torch.Tensor {
			return nn.MSE(torch.Ones([]int{3}), torch.Ones([]int{3, 1}))
		}),
		want("loss/huber_delta_-1", func() []reflect.Value { return values(nn.Huber(f32(), f32(), nn.WithBeta(-1))) }),
		want("loss/huber_delta_0", func() []reflect.Value { return values(nn.Huber(f32(), f32(), nn.WithBeta(0))) }),
		want("loss/huber_delta_nan", func() []reflect.Value {
			return values(nn.Huber(f32(), f32(), nn.WithBeta(math.NaN())))
		}),
		want("loss/smooth_l1_beta_-1", func() []reflect.Value {
			return values(nn.SmoothL1(f32(), f32(), nn.WithBeta(-1)))
		}),
		wantValid("loss/smooth_l1_beta_0", torch.Float32, func() *torch.Tensor {
			return nn.SmoothL1(f32(), f32(), nn.WithBeta(0))
		}),
		want("loss/bce_input_above_1", func() []reflect.Value {
			return values(nn.BCE(torch.FromSlice([]float32{1.5, 0.5}), torch.Ones([]int{2})))
		}),
		want("loss/bce_input_below_0", func() []reflect.Value {
			return values(nn.BCE(torch.FromSlice([]float32{-0.5, 0.5}), torch.Ones([]int{2})))
		}),
		want("loss/bce_input_nan", func() []reflect.Value {
			return values(nn.BCE(torch.FromSlice([]float32{float32(math.NaN()), 0.5}), torch.Ones([]int{2})))
		}),
		want("loss/bce_target_shape", func() []reflect.Value {
			return values(nn.BCE(torch.Full([]int{3}, 0.5), torch.Ones([]int{3, 1})))
		}),
		want("loss/bce_target_shape_scalar", func() []reflect.Value {
			return values(nn.BCE(torch.Full([]int{3}, 0.5), torch.Scalar(1.0)))
		}),
		want("loss/bce_target_int64", func() []reflect.Value {
			return values(nn.BCE(torch.Full([]int{2}, 0.5), i64(1, 0)))
		}),
		want("loss/bce_weight_shape", func() []reflect.Value {
			return values(nn.BCE(torch.Full([]int{3}, 0.5), torch.Ones([]int{3}), nn.WithWeight(torch.Ones([]int{4}))))
		}),
		wantValid("loss/bce_target_outside_0_1", torch.Float32, func() *torch.Tensor {
			return nn.BCE(torch.Full([]int{2}, 0.5), torch.FromSlice([]float32{2, -1}))
		}),
		want("loss/bce_with_logits_target_shape", func() []reflect.Value {
			return values(nn.BCEWithLogits(torch.Zeros([]int{3}), torch.Ones([]int{3, 1})))
		}),
		want("loss/bce_with_logits_pos_weight_shape", func() []reflect.Value {
			return values(nn.BCEWithLogits(torch.Zeros([]int{3}), torch.Ones([]int{3}), nn.WithPosWeight(torch.Ones([]int{4}))))
		}),
	)
	for _, loss := range []struct {
		name string
		f    func(a, b *torch.Tensor, opts ...nn.LossOption) *torch.Tensor
		a, b func() *torch.Tensor
	}{
		{"nll", nn.NLL, func() *torch.Tensor { return f32().LogSoftmax(1) }, target},
		{"cross_entropy", nn.CrossEntropy, f32, target},
		{"mse", nn.MSE, f32, f32},
		{"l1", nn.L1, f32, f32},
		{"smooth_l1", nn.SmoothL1, f32, f32},
		{"huber", nn.Huber, f32, f32},
		{"bce", nn.BCE, f32, f32},
		{"bce_with_logits", nn.BCEWithLogits, f32, f32},
	} {
		add(
			want("loss/"+loss.name+"_reduction_42", func() []reflect.Value {
				return values(loss.f(loss.a(), loss.b(), nn.WithReduction(nn.Reduction(42))))
			}),
			want("loss/"+loss.name+"_reduction_-1", func() []reflect.Value {
				return values(loss.f(loss.a(), loss.b(), nn.WithReduction(nn.Reduction(-1))))
			}),
			want("loss/"+loss.name+"_nil_target", func() []reflect.Value { return values(loss.f(loss.a(), nil)) }),
			want("loss/"+loss.name+"_nil_input", func() []reflect.Value { return values(loss.f(nil, loss.b())) }),
			want("loss/"+loss.name+"_failed_input", func() []reflect.Value { return values(loss.f(f32().View(9), loss.b())) }),
			want("loss/"+loss.name+"_meta_cpu", func() []reflect.Value { return values(loss.f(toMeta(loss.a()), loss.b())) }),
			wantValid("loss/"+loss.name+"_nil_option", torch.Float32, func() *torch.Tensor { return loss.f(loss.a(), loss.b(), nil) }),
		)
	}

	// Devices and dtypes.
	add(
		want("device/add_meta_cpu", func() []reflect.Value { return values(onMeta().Add(f32())) }),
		want("device/mm_cpu_meta", func() []reflect.Value { return values(f32().Mm(onMeta())) }),
		want("device/where_meta_cpu", func() []reflect.Value { return values(torch.Where(boolMask(), onMeta(), f32())) }),
		want("device/copy_from_meta", func() []reflect.Value { return values(f32().Copy_(onMeta())) }),
		want("device/item_meta", func() []reflect.Value { return values2(torch.Zeros(nil, torch.WithDevice("meta")).Item()) }),
		want("device/toslice_meta", func() []reflect.Value { return values2(torch.ToSlice[float32](onMeta())) }),
		want("device/meta_to_cpu", func() []reflect.Value { return values2(onMeta().To("cpu")) }),
		want("device/equalerr_meta", func() []reflect.Value { return values2(torch.EqualErr(onMeta(), f32())) }),
		want("device/allcloseerr_meta", func() []reflect.Value {
			return values2(torch.AllCloseErr(onMeta(), f32(), 1e-5, 1e-8, false))
		}),
		want("device/npu_unavailable", func() []reflect.Value { return values(torch.Zeros([]int{2}, torch.WithDevice("npu:7"))) }),
		want("device/to_npu_unavailable", func() []reflect.Value { return values2(f32().To("npu:7")) }),
		want("device/linear_forward_meta_input", func() []reflect.Value { return values(nn.NewLinear(2, 2).Forward(onMeta())) }),
		want("device/cross_entropy_meta_target", func() []reflect.Value {
			return values(nn.CrossEntropy(f32(), torch.Zeros([]int{2}, torch.WithDType(torch.Int64), torch.WithDevice("meta"))))
		}),
		want("dtype/softmax_int64", func() []reflect.Value { return values(i64(1, 2).Softmax(0)) }),
		want("dtype/log_softmax_int64", func() []reflect.Value { return values(i64(1, 2).LogSoftmax(0)) }),
		want("dtype/mean_int64", func() []reflect.Value { return values(i64(1, 2).Mean()) }),
		want("dtype/gelu_int64", func() []reflect.Value { return values(i64(1, 2).Gelu()) }),
		want("dtype/mm_int64_float32", func() []reflect.Value { return values(i64(1, 2).View(1, 2).Mm(f32())) }),
		want("dtype/requires_grad_int64", func() []reflect.Value { return values(i64(1, 2).RequiresGrad_(true)) }),
		want("dtype/bitwise_and_float", func() []reflect.Value { return values(f32().BitwiseAnd(f32())) }),
		want("dtype/invalid_dtype", func() []reflect.Value {
			return values(torch.Zeros([]int{2}, torch.WithDType(torch.DType(99))))
		}),
		want("dtype/todtype_invalid", func() []reflect.Value { return values(f32().ToDType(torch.DType(200))) }),
		want("dtype/allcloseerr_int_float", func() []reflect.Value {
			return values2(torch.AllCloseErr(i64(1, 2), torch.FromSlice([]float32{1, 2}), 1e-5, 1e-8, false))
		}),
		want("dtype/allcloseerr_shapes", func() []reflect.Value {
			return values2(torch.AllCloseErr(torch.Ones([]int{2}), torch.Ones([]int{3}), 1e-5, 1e-8, false))
		}),
		wantValid("dtype/sqrt_int64", torch.Float32, func() *torch.Tensor { return i64(1, 4).Sqrt() }),
		allow("dtype/equalerr_int_float", func() []reflect.Value {
			return values2(torch.EqualErr(i64(1, 2), torch.FromSlice([]float32{1, 2})))
		}),
		allow("dtype/equalerr_shapes", func() []reflect.Value {
			return values2(torch.EqualErr(torch.Ones([]int{2}), torch.Ones([]int{3})))
		}),
	)

	// Sizes: negative, absurd, overflowing.
	add(
		want("size/empty_1<<62_cpu", func() []reflect.Value { return values(torch.Empty([]int{1 << 62})) }),
		want("size/empty_1<<62_meta", func() []reflect.Value {
			return values(torch.Empty([]int{1 << 62}, torch.WithDevice("meta")))
		}),
		want("size/zeros_overflowing_product", func() []reflect.Value { return values(torch.Zeros([]int{1 << 32, 1 << 32})) }),
		want("size/ones_overflowing_bytes_meta", func() []reflect.Value {
			return values(torch.Ones([]int{1 << 61}, torch.WithDType(torch.Float64), torch.WithDevice("meta")))
		}),
		want("size/empty_negative", func() []reflect.Value { return values(torch.Empty([]int{-1})) }),
		want("size/rand_negative", func() []reflect.Value { return values(torch.Rand([]int{2, -3})) }),
		want("size/view_overflowing", func() []reflect.Value { return values(f32().View(1<<62, 1<<62)) }),
		want("size/expand_overflowing", func() []reflect.Value {
			return values(torch.Ones([]int{1, 1}).Expand(1<<40, 1<<40).Contiguous())
		}),
		want("size/fromslice_shape_mismatch", func() []reflect.Value {
			return values(torch.FromSlice([]float32{1, 2}, torch.WithShape(1<<62)))
		}),
		want("size/linspace_negative_steps", func() []reflect.Value { return values(torch.Linspace(0, 1, -1)) }),
		want("size/eye_negative", func() []reflect.Value { return values(torch.Eye(-1)) }),
		want("size/arange_step_0", func() []reflect.Value { return values(torch.ArangeRange(0, 10, 0)) }),
		want("size/arange_huge", func() []reflect.Value { return values(torch.Arange(int64(1) << 62)) }),
		want("size/arange_nan", func() []reflect.Value { return values(torch.Arange(math.NaN())) }),
		want("size/arange_inf", func() []reflect.Value { return values(torch.Arange(math.Inf(1))) }),
		want("size/repeat_overflowing", func() []reflect.Value { return values(f32().Repeat(1<<40, 1<<40)) }),
		want("size/new_untyped_storage_huge", func() []reflect.Value { return values2(torch.NewUntypedStorage(1 << 62)) }),
		want("size/new_untyped_storage_negative", func() []reflect.Value { return values2(torch.NewUntypedStorage(-1)) }),
		want("size/storage_resize_negative", func() []reflect.Value { return values(f32().UntypedStorage().Resize_(-1)) }),
		want("size/storage_resize_huge", func() []reflect.Value { return values(f32().UntypedStorage().Resize_(1 << 62)) }),
		want("size/storage_slice_negative", func() []reflect.Value { return values2(f32().UntypedStorage().Slice(-1, 2)) }),
		want("size/storage_slice_past_end", func() []reflect.Value { return values2(f32().UntypedStorage().Slice(8, 1<<62)) }),
		want("size/from_storage_past_end", func() []reflect.Value {
			return values(torch.FromStorage(f32().Storage(), 0, []int{100}, nil))
		}),
		want("size/from_storage_negative_offset", func() []reflect.Value {
			return values(torch.FromStorage(f32().Storage(), -1, []int{2}, nil))
		}),
		want("size/from_storage_negative_stride", func() []reflect.Value {
			return values(torch.FromStorage(f32().Storage(), 3, []int{2}, []int{-1}))
		}),
		want("size/from_storage_nil", func() []reflect.Value {
			return values(torch.FromStorage(torch.TypedStorage{}, 0, []int{2}, nil))
		}),
		want("size/as_strided_past_end", func() []reflect.Value { return values(f32().AsStrided([]int{2}, []int{1 << 40}, 0)) }),
		want("size/typed_storage_copy_size", func() []reflect.Value {
			return values(f32().Storage().Copy_(torch.Ones([]int{3}).Storage()))
		}),
	)

	// Dims and indices out of range.
	add(
		want("dim/sum_7", func() []reflect.Value { return values(f32().Sum(7)) }),
		want("dim/sum_repeated", func() []reflect.Value { return values(f32().Sum(0, 0)) }),
		want("dim/softmax_5", func() []reflect.Value { return values(f32().Softmax(5)) }),
		want("dim/transpose_5", func() []reflect.Value { return values(f32().Transpose(5, 0)) }),
		want("dim/select_99", func() []reflect.Value { return values(f32().Select(0, 99)) }),
		want("dim/narrow_past_end", func() []reflect.Value { return values(f32().Narrow(0, 1, 5)) }),
		want("dim/max_dim_3", func() []reflect.Value { return values2(f32().MaxDim(3, false)) }),
		want("dim/argmax_dim_-3", func() []reflect.Value { return values(f32().ArgmaxDim(-3, false)) }),
		want("dim/cumsum_2", func() []reflect.Value { return values(f32().Cumsum(2)) }),
		want("dim/cumsum_inplace_2", func() []reflect.Value { return values(f32().Cumsum_(2)) }),
		want("dim/gather_index_out_of_range", func() []reflect.Value { return values(f32().Gather(0, i64(5, 0).View(1, 2))) }),
		want("dim/index_select_out_of_range", func() []reflect.Value { return values(f32().IndexSelect(0, i64(2))) }),
		want("dim/index_put_out_of_range", func() []reflect.Value {
			return values(f32().IndexPut_([]*torch.Tensor{i64(9)}, torch.Scalar(float32(1)), false))
		}),
		want("dim/index_put_float_index", func() []reflect.Value {
			return values(f32().IndexPut_([]*torch.Tensor{f32()}, torch.Scalar(float32(1)), false))
		}),
		want("dim/one_hot_class_too_large", func() []reflect.Value { return values(torch.OneHot(i64(0, 2), 2)) }),
		want("dim/one_hot_negative_class", func() []reflect.Value { return values(torch.OneHot(i64(0, -1), 3)) }),
		want("dim/embedding_out_of_range", func() []reflect.Value { return values(nn.NewEmbedding(4, 2).Forward(i64(4))) }),
		want("dim/embedding_float_indices", func() []reflect.Value { return values(nn.NewEmbedding(4, 2).Forward(f32())) }),
		want("dim/topk_too_many", func() []reflect.Value { return values2(f32().Topk(5, 0, true)) }),
		want("dim/unbind_3", func() []reflect.Value { return values2(f32().Unbind(3)) }),
		want("dim/chunk_0", func() []reflect.Value { return values2(f32().Chunk(0, 0)) }),
		want("dim/split_0", func() []reflect.Value { return values2(f32().Split(0, 0)) }),
		want("dim/flatten_reversed", func() []reflect.Value { return values(f32().Flatten(1, 0)) }),
		want("dim/cat_empty_list", func() []reflect.Value { return values(torch.Cat(nil, 0)) }),
		want("dim/stack_empty_list", func() []reflect.Value { return values(torch.Stack(nil, 0)) }),
		want("dim/hstack_empty_list", func() []reflect.Value { return values(torch.HStack(nil)) }),
		want("dim/vstack_empty_list", func() []reflect.Value { return values(torch.VStack(nil)) }),
		want("dim/cat_shapes", func() []reflect.Value {
			return values(torch.Cat([]*torch.Tensor{f32(), torch.Ones([]int{2, 3, 4})}, 0))
		}),
	)

	// Bad options and absurd values.
	add(
		// A nil option sets nothing, as None does in PyTorch.
		wantValid("option/nil_option_zeros", torch.Float32, func() *torch.Tensor { return torch.Zeros([]int{2}, nil) }),
		wantValid("option/nil_option_fromslice", torch.Float32, func() *torch.Tensor { return torch.FromSlice([]float32{1}, nil) }),
		wantValid("option/nil_option_scalar", torch.Float32, func() *torch.Tensor { return torch.Scalar(1.0, nil) }),
		wantValid("option/nil_option_rand", torch.Float32, func() *torch.Tensor { return torch.Rand([]int{2}, nil) }),
		wantValid("option/nil_option_uniform_", torch.Float32, func() *torch.Tensor { return f32().Uniform_(0, 1, nil) }),
		wantValid("option/nil_option_zeros_like", torch.Float32, func() *torch.Tensor { return torch.ZerosLike(f32(), nil) }),
		wantValid("option/nil_option_new_linear", torch.Float32, func() *torch.Tensor { return nn.NewLinear(2, 2, nil).Forward(f32()) }),
		want("option/result_type_nil", func() []reflect.Value { return values2(torch.ResultType(f32(), null)) }),
		allow("option/nil_print_option", func() []reflect.Value {
			torch.SetPrintOptions(nil)
			return values(f32().String())
		}),
		allow("option/print_precision_-1", func() []reflect.Value {
			torch.SetPrintOptions(torch.PrintPrecision(-1), torch.PrintLineWidth(-5), torch.PrintEdgeItems(-1), torch.PrintThreshold(-1))
			s := torch.FromSlice([]float32{1.5, 2, 3, 4, 5}).String()
			torch.SetPrintOptions(torch.PrintProfile("default"))
			return values(s)
		}),
		allow("option/print_profile_unknown", func() []reflect.Value {
			torch.SetPrintOptions(torch.PrintProfile("no such profile"))
			s := f32().String()
			torch.SetPrintOptions(torch.PrintProfile("default"))
			return values(s)
		}),
		// A zero Generator is PyTorch's torch.Generator(): usable, with the
		// default seed 67280421310721.
		badCase{"option/zero_generator", func() outcome {
			got, err := torch.ToSlice[float32](torch.Rand([]int{2}, torch.WithGenerator(new(torch.Generator))))
			if err != nil {
				return outcome{fail: "PyTorch accepts this input, but got: " + err.Error()}
			}
			want, _ := torch.ToSlice[float32](torch.Rand([]int{2}, torch.WithGenerator(torch.NewGenerator(67280421310721))))
			if !slices.Equal(got, want) {
				return outcome{fail: fmt.Sprintf("drew %v, the default seed draws %v", got, want)}
			}
			if s := new(torch.Generator).InitialSeed(); s != 67280421310721 {
				return outcome{fail: fmt.Sprintf("initial seed %d, PyTorch's is 67280421310721", s)}
			}
			return outcome{note: fmt.Sprintf("drew %v", got)}
		}},
		want("option/full_string_value", func() []reflect.Value { return values(torch.Full([]int{2}, "x")) }),
		want("option/scalar_string", func() []reflect.Value { return values(torch.Scalar("x")) }),
		want("option/scalar_nil", func() []reflect.Value { return values(torch.Scalar(nil)) }),
		want("option/fill_struct", func() []reflect.Value { return values(f32().Fill_(struct{}{})) }),
		want("option/add_scalar_string", func() []reflect.Value { return values(f32().AddScalar("1")) }),
		want("option/from_nested_ragged", func() []reflect.Value {
			return values(torch.FromNested([][]float32{{1, 2}, {3}}))
		}),
		want("option/from_nested_strings", func() []reflect.Value { return values(torch.FromNested([]string{"a"})) }),
		want("option/from_nested_nil", func() []reflect.Value { return values(torch.FromNested(nil)) }),
		want("option/randint_empty_range", func() []reflect.Value { return values(torch.Randint(5, 1, []int{2})) }),
		want("option/bernoulli_p_2", func() []reflect.Value { return values(f32().Bernoulli_(2)) }),
		want("option/uniform_from_above_to", func() []reflect.Value { return values(f32().Uniform_(1, 0)) }),
		want("option/normal_negative_std", func() []reflect.Value { return values(f32().Normal_(0, -1)) }),
		want("option/scatter_reduce_unknown", func() []reflect.Value {
			return values(f32().ScatterReduce(0, i64(0, 1).View(1, 2), f32(), "median", true))
		}),
		want("option/clamp_no_bounds", func() []reflect.Value { return values(f32().Clamp(nil, nil)) }),
		want("option/clamp_tensor_no_bounds", func() []reflect.Value { return values(f32().ClampTensor(nil, nil)) }),
		want("option/gradcheck_nil_func", func() []reflect.Value {
			return values(torch.GradCheck(nil, []*torch.Tensor{f32()}, torch.GradCheckOptions{}))
		}),
		want("option/gradcheck_func_returns_nil", func() []reflect.Value {
			x := torch.Ones([]int{2}, torch.WithDType(torch.Float64), torch.WithRequiresGrad(true))
			return values(torch.GradCheck(func(...*torch.Tensor) *torch.Tensor { return nil }, []*torch.Tensor{x}, torch.GradCheckOptions{}))
		}),
		want("option/register_hook_nil", func() []reflect.Value {
			return values(torch.Ones([]int{2}, torch.WithRequiresGrad(true)).RegisterHook(nil))
		}),
		want("option/backward_non_scalar", func() []reflect.Value {
			return values(torch.Ones([]int{2}, torch.WithRequiresGrad(true)).MulScalar(2).Backward())
		}),
		want("option/backward_without_grad", func() []reflect.Value { return values(f32().Sum().Backward()) }),
		want("option/backward_grad_shape", func() []reflect.Value {
			y := torch.Ones([]int{2}, torch.WithRequiresGrad(true)).MulScalar(2)
			return values(y.BackwardWith(torch.BackwardOptions{Grad: torch.Ones([]int{3})}))
		}),
		want("option/backward_twice", func() []reflect.Value {
			y := torch.Ones([]int{2}, torch.WithRequiresGrad(true)).MulScalar(2).Sum()
			_ = y.Backward()
			return values(y.Backward())
		}),
		want("option/set_grad_wrong_shape", func() []reflect.Value { return values(f32().SetGrad(torch.Ones([]int{3}))) }),
		want("option/grad_nil_output", func() []reflect.Value {
			return values2(torch.Grad([]*torch.Tensor{nil}, []*torch.Tensor{f32()}, torch.GradOptions{}))
		}),
		want("option/grad_empty", func() []reflect.Value {
			return values2(torch.Grad(nil, nil, torch.GradOptions{}))
		}),
	)

	// nn: modules built without their constructors, absurd sizes and values.
	x := func() *torch.Tensor { return f32() }
	add(
		want("nn/zero_linear_forward", func() []reflect.Value { return values((&nn.Linear{}).Forward(x())) }),
		want("nn/nil_linear_forward", func() []reflect.Value { return values((*nn.Linear)(nil).Forward(x())) }),
		want("nn/zero_func_forward", func() []reflect.Value { return values((&nn.Func{}).Forward(x())) }),
		want("nn/zero_layer_norm_forward", func() []reflect.Value { return values((&nn.LayerNorm{}).Forward(x())) }),
		want("nn/layer_norm_empty_shape", func() []reflect.Value { return values(nn.NewLayerNorm(nil).Forward(x())) }),
		allow("nn/layer_norm_eps_nan", func() []reflect.Value {
			l := nn.NewLayerNorm([]int{2})
			l.Eps = math.NaN()
			return values(l.Forward(x()))
		}),
		want("nn/layer_norm_int_input", func() []reflect.Value { return values(nn.NewLayerNorm([]int{2}).Forward(i64(1, 2))) }),
		want("nn/zero_embedding_forward", func() []reflect.Value { return values((&nn.Embedding{}).Forward(i64(0))) }),
		want("nn/sequential_nil_module_forward", func() []reflect.Value { return values(nn.NewSequential(nil).Forward(x())) }),
		want("nn/sequential_nil_linear_forward", func() []reflect.Value {
			return values(nn.NewSequential((*nn.Linear)(nil)).Forward(x()))
		}),
		want("nn/dropout_p_2", func() []reflect.Value { return values(nn.NewDropout(2).Forward(x())) }),
		want("nn/dropout_p_nan", func() []reflect.Value { return values(nn.NewDropout(math.NaN()).Forward(x())) }),
		want("nn/new_linear_negative", func() []reflect.Value { return values(nn.NewLinear(-1, 2).Forward(x())) }),
		want("nn/new_embedding_negative", func() []reflect.Value { return values(nn.NewEmbedding(-1, 2).Forward(i64(0))) }),
		want("nn/new_layer_norm_negative", func() []reflect.Value { return values(nn.NewLayerNorm([]int{-2}).Forward(x())) }),
		want("nn/linear_forward_shape", func() []reflect.Value { return values(nn.NewLinear(3, 2).Forward(x())) }),
		want("nn/parameter_nil", func() []reflect.Value { return values(nn.Parameter(nil)) }),
		want("nn/parameter_int64", func() []reflect.Value { return values(nn.Parameter(i64(1))) }),
		want("nn/load_state_dict_nil_weight", func() []reflect.Value {
			return values(nn.LoadStateDict(nn.NewLinear(2, 2), map[string]*torch.Tensor{"weight": nil, "bias": torch.Ones([]int{2})}))
		}),
		want("nn/load_state_dict_nil_module", func() []reflect.Value {
			return values(nn.LoadStateDict(nil, map[string]*torch.Tensor{"weight": f32()}))
		}),
		want("nn/load_state_dict_nil_map", func() []reflect.Value { return values(nn.LoadStateDict(nn.NewLinear(2, 2), nil)) }),
		want("nn/load_state_dict_zero_linear", func() []reflect.Value {
			return values(nn.LoadStateDict(&nn.Linear{}, map[string]*torch.Tensor{"weight": f32()}))
		}),
		want("nn/init_kaiming_bad_mode", func() []reflect.Value {
			return values(nn.KaimingUniform_(f32(), 0, "fan_sideways", "relu"))
		}),
		want("nn/init_kaiming_bad_nonlinearity", func() []reflect.Value {
			return values(nn.KaimingNormal_(f32(), 0, "fan_in", "no such"))
		}),
		want("nn/init_xavier_1d", func() []reflect.Value { return values(nn.XavierUniform_(torch.Ones([]int{3}), 1)) }),
		wantValid("nn/init_kaiming_empty", torch.Float32, func() *torch.Tensor { // a no-op
			return nn.KaimingUniform_(torch.Ones([]int{0, 2}), 0, "fan_out", "relu")
		}),
		want("nn/init_uniform_int64", func() []reflect.Value { return values(nn.Uniform_(i64(1, 2), 0, 1)) }),
		want("nn/init_normal_negative_std", func() []reflect.Value { return values(nn.Normal_(f32(), 0, -1)) }),
		want("nn/calculate_gain_unknown", func() []reflect.Value { return values2(nn.CalculateGain("no such", 0)) }),
	)

	// Optimizers.
	add(
		want("optim/sgd_empty", func() []reflect.Value { return values2(optim.NewSGD(nil)) }),
		want("optim/sgd_nil_param", func() []reflect.Value { return values2(optim.NewSGD([]*torch.Tensor{nil})) }),
		want("optim/sgd_failed_param", func() []reflect.Value {
			return values2(optim.NewSGD([]*torch.Tensor{f32().View(9)}))
		}),
		want("optim/sgd_non_leaf", func() []reflect.Value {
			return values2(optim.NewSGD([]*torch.Tensor{torch.Ones([]int{2}, torch.WithRequiresGrad(true)).MulScalar(2)}))
		}),
		want("optim/sgd_int_param", func() []reflect.Value { return values2(optim.NewSGD([]*torch.Tensor{i64(1)})) }),
		want("optim/sgd_negative_lr", func() []reflect.Value { return values2(optim.NewSGD(params(), optim.LR(-1))) }),
		want("optim/sgd_nan_lr", func() []reflect.Value { return values2(optim.NewSGD(params(), optim.LR(math.NaN()))) }),
		want("optim/sgd_zero_option", func() []reflect.Value { return values2(optim.NewSGD(params(), optim.Option{})) }),
		want("optim/sgd_adam_option", func() []reflect.Value { return values2(optim.NewSGD(params(), optim.Betas(0.9, 0.9))) }),
		want("optim/adam_beta_2", func() []reflect.Value { return values2(optim.NewAdam(params(), optim.Betas(2, 0.9))) }),
		want("optim/adam_negative_eps", func() []reflect.Value { return values2(optim.NewAdam(params(), optim.Eps(-1))) }),
		want("optim/adamw_momentum", func() []reflect.Value { return values2(optim.NewAdamW(params(), optim.Momentum(0.9))) }),
		want("optim/sgd_step_failed_grad", func() []reflect.Value {
			ps := params()
			o := must(optim.NewSGD(ps))
			if err := ps[0].SetGrad(torch.Ones([]int{2, 2}).Div(torch.Ones([]int{3}))); err != nil {
				return values(err) // refused on assignment: fine too
			}
			return values(o.Step())
		}),
		want("optim/adam_step_param_released", func() []reflect.Value {
			ps := params()
			o := must(optim.NewAdam(ps))
			ps[0].Release()
			return values(o.Step())
		}),
		want("optim/sgd_set_lr_negative", func() []reflect.Value {
			return values(must(optim.NewSGD(params())).SetLR(-1))
		}),
	)

	// Storages and files.
	dir := func() string { return filepath.Dir(savedFile()) }
	add(
		want("storage/from_file_missing", func() []reflect.Value {
			return values2(torch.UntypedStorageFromFile("/nonexistent/badinput", false, 0))
		}),
		want("storage/from_file_negative", func() []reflect.Value {
			return values2(torch.UntypedStorageFromFile(filepath.Join(dir(), "neg"), true, -1))
		}),
		want("storage/from_file_directory", func() []reflect.Value { return values2(torch.UntypedStorageFromFile(dir(), false, 0)) }),
		want("storage/open_shared_bad_fd", func() []reflect.Value { return values2(torch.OpenSharedStorage(-1, 8)) }),
		want("storage/open_shared_negative_size", func() []reflect.Value { return values2(torch.OpenSharedStorage(0, -8)) }),
		want("storage/copy_nil", func() []reflect.Value { return values(f32().UntypedStorage().Copy_(nil)) }),
		want("storage/copy_sizes", func() []reflect.Value {
			return values(f32().UntypedStorage().Copy_(torch.Ones([]int{3}).UntypedStorage()))
		}),
		want("storage/released_tensor_op", func() []reflect.Value {
			t := torch.Ones([]int{1 << 15})
			t.Release()
			return values(t.AddScalar(1))
		}),
		want("storage/released_item", func() []reflect.Value {
			t := torch.Ones([]int{1 << 15})
			t.UntypedStorage().Release()
			return values2(t.Sum().Item())
		}),
		want("storage/set_nil_storage", func() []reflect.Value {
			return values(f32().Set_(torch.TypedStorage{}, 0, []int{2}, nil))
		}),
		want("safetensors/open_missing", func() []reflect.Value { return values2(safetensors.Open("/nonexistent/x.safetensors")) }),
		want("safetensors/open_garbage", func() []reflect.Value { return values2(safetensors.Open(garbageFile(dir(), "garbage", 64))) }),
		want("safetensors/open_empty", func() []reflect.Value { return values2(safetensors.Open(garbageFile(dir(), "empty", 0))) }),
		want("safetensors/open_huge_header", func() []reflect.Value { return values2(safetensors.Open(hugeHeaderFile(dir()))) }),
		want("safetensors/load_garbage", func() []reflect.Value { return values2(safetensors.Load(garbageFile(dir(), "garbage2", 64))) }),
		want("safetensors/load_directory", func() []reflect.Value { return values2(safetensors.Load(dir())) }),
		want("safetensors/save_nil_tensor", func() []reflect.Value {
			return values(safetensors.Save(filepath.Join(dir(), "nil.safetensors"), map[string]*torch.Tensor{"a": nil}, nil))
		}),
		want("safetensors/save_failed_tensor", func() []reflect.Value {
			return values(safetensors.Save(filepath.Join(dir(), "failed.safetensors"), map[string]*torch.Tensor{"a": f32().View(9)}, nil))
		}),
		want("safetensors/save_meta_tensor", func() []reflect.Value {
			return values(safetensors.Save(filepath.Join(dir(), "meta.safetensors"), map[string]*torch.Tensor{"a": onMeta()}, nil))
		}),
		want("safetensors/save_missing_dir", func() []reflect.Value {
			return values(safetensors.Save("/nonexistent/dir/x.safetensors", map[string]*torch.Tensor{"a": f32()}, nil))
		}),
		want("safetensors/tensor_missing", func() []reflect.Value {
			return values2(must(safetensors.Open(savedFile())).Tensor("no such"))
		}),
		want("safetensors/tensor_after_close", func() []reflect.Value {
			f := must(safetensors.Open(savedFile()))
			f.Close()
			return values2(f.Tensor("weight"))
		}),
		allow("safetensors/close_twice", func() []reflect.Value {
			f := must(safetensors.Open(savedFile()))
			f.Close()
			return values(f.Close())
		}),
	)
	return cs
}

// garbageFile writes n bytes of 0xff to dir/name and returns its path.
func garbageFile(dir, name string, n int) string {
	path := filepath.Join(dir, name)
	b := make([]byte, n)
	for i := range b {
		b[i] = 0xff
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		panic(err)
	}
	return path
}

// hugeHeaderFile is a file whose header claims 2^62 bytes.
func hugeHeaderFile(dir string) string {
	path := filepath.Join(dir, "huge")
	b := []byte{0, 0, 0, 0, 0, 0, 0, 0x40, '{', '}'}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		panic(err)
	}
	return path
}
