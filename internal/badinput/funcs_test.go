package badinput

import (
	"path/filepath"
	"reflect"
	"sort"

	"github.com/mindtorch/mindtorch/pkg/data"
	"github.com/mindtorch/mindtorch/pkg/nn"
	"github.com/mindtorch/mindtorch/pkg/optim"
	"github.com/mindtorch/mindtorch/pkg/safetensors"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// tensorFuncs lists every exported function of torch, nn, optim and
// safetensors that takes a tensor (or a list or map of them, or an
// nn.Module), with valid arguments where the defaults of validArg do not
// fit. TestEveryTensorFunctionHasCases fails when one is missing.
func tensorFuncs() []callable {
	return []callable{
		fn("torch.Where", torch.Where).withArgs(func() []any { return []any{boolMask(), f32(), f32()} }),
		fn("torch.Lerp", torch.Lerp),
		fn("torch.LerpScalar", torch.LerpScalar),
		fn("torch.ThresholdBackward", torch.ThresholdBackward),
		fn("torch.CheckGrad", torch.CheckGrad),
		fn("torch.Grad", torch.Grad),
		fn("torch.Keep", torch.Keep),
		fn("torch.ToSlice", torch.ToSlice[float32]),
		fn("torch.Equal", torch.Equal),
		fn("torch.EqualErr", torch.EqualErr),
		fn("torch.AllClose", torch.AllClose),
		fn("torch.AllCloseErr", torch.AllCloseErr),
		fn("torch.EmptyLike", torch.EmptyLike),
		fn("torch.ZerosLike", torch.ZerosLike),
		fn("torch.OnesLike", torch.OnesLike),
		fn("torch.RandLike", torch.RandLike),
		fn("torch.RandnLike", torch.RandnLike),
		fn("torch.FullLike", torch.FullLike),
		fn("torch.GradCheck", torch.GradCheck),
		fn("torch.Addmm", torch.Addmm),
		fn("torch.Baddbmm", torch.Baddbmm).withArgs(func() []any { return []any{f32().View(1, 2, 2), f32().View(1, 2, 2), f32().View(1, 2, 2), 1, 1} }),
		fn("torch.Linear", torch.Linear).acceptNil(2), // bias=None
		fn("torch.Conv1d", torch.Conv1d).acceptNil(2), // bias=None
		fn("torch.Conv2d", torch.Conv2d).acceptNil(2),
		fn("torch.ConvTranspose1d", torch.ConvTranspose1d).acceptNil(2),
		fn("torch.ConvTranspose2d", torch.ConvTranspose2d).acceptNil(2),
		fn("torch.Conv2dWeightGrad", torch.Conv2dWeightGrad),
		fn("torch.Cat", torch.Cat),
		fn("torch.Stack", torch.Stack),
		fn("torch.HStack", torch.HStack),
		fn("torch.VStack", torch.VStack),
		fn("torch.Searchsorted", torch.Searchsorted),
		fn("torch.OneHot", torch.OneHot).withArgs(func() []any { return []any{classes(), 3} }),
		fn("torch.Embedding", torch.Embedding).withArgs(func() []any { return []any{classes(), f32()} }),
		fn("torch.Into", torch.Into), // the error comes with the op
		fn("torch.Bernoulli", torch.Bernoulli),
		fn("torch.SoftmaxBackward", torch.SoftmaxBackward),
		fn("torch.LogSoftmaxBackward", torch.LogSoftmaxBackward),
		fn("torch.RSub", torch.RSub).withArgs(func() []any { return []any{2, f32()} }),
		fn("torch.RDiv", torch.RDiv).withArgs(func() []any { return []any{2, f32()} }),
		fn("torch.RFloorDivide", torch.RFloorDivide).withArgs(func() []any { return []any{2, f32()} }),
		fn("torch.RRemainder", torch.RRemainder).withArgs(func() []any { return []any{2, f32()} }),
		fn("torch.RPow", torch.RPow).withArgs(func() []any { return []any{2, f32()} }),
		fn("torch.Addmv", torch.Addmv).withArgs(func() []any { return []any{f32().Select(0, 0), f32(), f32().Select(0, 1), 1, 1} }),
		fn("torch.Addr", torch.Addr).withArgs(func() []any { return []any{f32(), f32().Select(0, 0), f32().Select(0, 1), 1, 1} }),
		fn("torch.Einsum", torch.Einsum).withArgs(func() []any { return []any{"ij->ji"} }),
		fn("torch.Bucketize", torch.Bucketize).withArgs(func() []any { return []any{f32(), f32().Flatten(0, 1), false, false} }),
		fn("torch.BucketizeScalar", torch.BucketizeScalar).withArgs(func() []any { return []any{0.25, f32().Flatten(0, 1), false, false} }),
		fn("torch.SearchsortedWith", torch.SearchsortedWith).withArgs(func() []any {
			return []any{f32().Flatten(0, 1), f32(), torch.SearchsortedOptions{}}
		}),
		fn("torch.SearchsortedScalar", torch.SearchsortedScalar).withArgs(func() []any {
			return []any{f32().Flatten(0, 1), 0.25, torch.SearchsortedOptions{}}
		}),
		fn("torch.RepeatInterleaveIndex", torch.RepeatInterleaveIndex).withArgs(func() []any { return []any{classes()} }),
		fn("torch.WhereCond", torch.WhereCond).withArgs(func() []any { return []any{boolMask()} }),
		fn("torch.WhereScalar", torch.WhereScalar).withArgs(func() []any { return []any{boolMask(), 1.5, f32()} }),
		fn("torch.Idx", torch.Idx).acceptNil(0),           // the error comes when the index is used
		fn("torch.NewError", torch.NewError).acceptNil(2), // an error about nothing in particular
		fn("torch.MaxPool2d", torch.MaxPool2d).withArgs(func() []any { return []any{f32().View(1, 2, 2), []int{2}, torch.MaxPoolOptions{}} }),
		fn("torch.MaxPool2dWithIndices", torch.MaxPool2dWithIndices).withArgs(func() []any {
			return []any{f32().View(1, 2, 2), []int{2}, torch.MaxPoolOptions{}}
		}),
		fn("torch.MaxPool1d", torch.MaxPool1d).withArgs(func() []any { return []any{f32(), 2, torch.MaxPoolOptions{}} }),
		fn("torch.MaxPool1dWithIndices", torch.MaxPool1dWithIndices).withArgs(func() []any { return []any{f32(), 2, torch.MaxPoolOptions{}} }),
		fn("torch.AvgPool2d", torch.AvgPool2d).withArgs(func() []any { return []any{f32().View(1, 2, 2), []int{2}, torch.AvgPoolOptions{}} }),
		fn("torch.AvgPool1d", torch.AvgPool1d).withArgs(func() []any { return []any{f32(), 2, torch.AvgPoolOptions{}} }),
		fn("torch.AdaptiveAvgPool2d", torch.AdaptiveAvgPool2d).withArgs(func() []any { return []any{f32().View(1, 2, 2), []int{1, 2}} }),
		fn("torch.AdaptiveMaxPool2d", torch.AdaptiveMaxPool2d).withArgs(func() []any { return []any{f32().View(1, 2, 2), []int{1, 2}} }),
		fn("torch.NativeBatchNorm", torch.NativeBatchNorm).acceptNil(1, 2, 3, 4).withArgs(func() []any {
			return []any{f32(), nil, nil, nil, nil, true, 1e-5}
		}),
		fn("torch.NativeLayerNorm", torch.NativeLayerNorm).acceptNil(2, 3).withArgs(func() []any {
			return []any{f32(), []int{2}, nil, nil, 1e-5}
		}),
		fn("torch.FusedRMSNorm", torch.FusedRMSNorm).acceptNil(2).withArgs(func() []any { return []any{f32(), []int{2}, nil, 1e-5} }),
		fn("torch.NativeGroupNorm", torch.NativeGroupNorm).acceptNil(1, 2).withArgs(func() []any { return []any{f32(), nil, nil, 2, 1e-5} }),

		fn("nn.BatchNorm", nn.BatchNorm).acceptNil(1, 2, 3, 4), // running stats, weight, bias: None
		fn("nn.InstanceNorm", nn.InstanceNorm).acceptNil(1, 2, 3, 4).withArgs(func() []any {
			return []any{f32().View(1, 2, 2), nil, nil, nil, nil, true, 0.1, 1e-5}
		}),
		fn("nn.GroupNormF", nn.GroupNormF).acceptNil(2, 3).withArgs(func() []any { return []any{f32(), 2, nil, nil, 1e-5} }),
		fn("nn.RMSNormF", nn.RMSNormF).acceptNil(2).withArgs(func() []any { return []any{f32(), []int{2}, nil, nil} }),
		fn("nn.EmbeddingF", nn.EmbeddingF).withArgs(func() []any { return []any{classes(), f32(), nn.EmbeddingOptions{}} }),
		fn("nn.EmbeddingBagF", nn.EmbeddingBagF).acceptNil(2, 3).withArgs(func() []any {
			return []any{classes().View(2, 2), f32(), nil, nil, "sum", nn.EmbeddingOptions{}}
		}),
		fn("nn.Interpolate", nn.Interpolate).withArgs(func() []any { return []any{f32().View(1, 1, 2, 2), []int{3, 3}, nil, "nearest", false} }),
		fn("nn.Pad", nn.Pad).withArgs(func() []any { return []any{f32(), []int{1, 1}, "constant", 0.0} }),
		fn("nn.PReLUF", nn.PReLUF),
		fn("nn.GLUF", nn.GLUF),
		fn("nn.Dropout2dF", nn.Dropout2dF).withArgs(func() []any { return []any{f32(), 0.5, true} }),
		fn("nn.Uniform_", nn.Uniform_),
		fn("nn.Normal_", nn.Normal_),
		fn("nn.Constant_", nn.Constant_),
		fn("nn.Zeros_", nn.Zeros_),
		fn("nn.Ones_", nn.Ones_),
		fn("nn.KaimingUniform_", nn.KaimingUniform_).withArgs(func() []any { return []any{f32(), 0, "fan_in", "relu"} }),
		fn("nn.KaimingNormal_", nn.KaimingNormal_).withArgs(func() []any { return []any{f32(), 0, "fan_in", "relu"} }),
		fn("nn.XavierUniform_", nn.XavierUniform_),
		fn("nn.XavierNormal_", nn.XavierNormal_),
		fn("nn.NewModuleList", nn.NewModuleList),       // a nil module is absent (PyTorch's None)
		fn("nn.NewParameterList", nn.NewParameterList), // a nil tensor is kept as a tensor carrying the error
		fn("nn.RegisterForwardPreHook", nn.RegisterForwardPreHook),
		fn("nn.RegisterForwardHook", nn.RegisterForwardHook),
		fn("nn.Call", nn.Call).withArgs(func() []any { return []any{nn.ReLU(), f32()} }),
		fn("nn.WithWeight", nn.WithWeight).acceptNil(0),       // weight=None
		fn("nn.WithPosWeight", nn.WithPosWeight).acceptNil(0), // pos_weight=None
		fn("nn.NLL", nn.NLL).withArgs(func() []any { return []any{f32().LogSoftmax(1), classes().Narrow(0, 0, 2)} }),
		fn("nn.CrossEntropy", nn.CrossEntropy).withArgs(func() []any { return []any{f32(), classes().Narrow(0, 0, 2)} }),
		fn("nn.MSE", nn.MSE),
		fn("nn.L1", nn.L1),
		fn("nn.SmoothL1", nn.SmoothL1),
		fn("nn.Huber", nn.Huber),
		fn("nn.BCE", nn.BCE),
		fn("nn.BCEWithLogits", nn.BCEWithLogits),
		fn("nn.KLDiv", nn.KLDiv),
		fn("nn.CosineEmbedding", nn.CosineEmbedding).withArgs(func() []any { return []any{f32(), f32(), f32().Select(1, 0)} }),
		fn("nn.MarginRanking", nn.MarginRanking),
		fn("nn.TripletMargin", nn.TripletMargin),
		fn("nn.HingeEmbedding", nn.HingeEmbedding),
		fn("nn.PoissonNLL", nn.PoissonNLL),
		fn("nn.GaussianNLL", nn.GaussianNLL),
		fn("nn.MultiLabelSoftMargin", nn.MultiLabelSoftMargin),
		fn("nn.MultiMargin", nn.MultiMargin).withArgs(func() []any { return []any{f32(), classes().Narrow(0, 0, 2)} }),
		fn("nn.SoftMargin", nn.SoftMargin),
		fn("nn.CTC", nn.CTC).withArgs(func() []any {
			return []any{f32().View(2, 1, 2).LogSoftmax(2), torch.FromSlice([]int64{1}).View(1, 1), []int{2}, []int{1}}
		}),
		fn("nn.Parameter", nn.Parameter),
		fn("nn.Parameters", nn.Parameters),
		fn("nn.ZeroGrad", nn.ZeroGrad),
		fn("nn.Eval", nn.Eval),
		fn("nn.StateDict", nn.StateDict),
		fn("nn.LoadStateDict", nn.LoadStateDict),
		fn("nn.LoadStateDictNonStrict", nn.LoadStateDictNonStrict),
		fn("nn.NamedState", nn.NamedState),
		fn("nn.NamedParameters", nn.NamedParameters),
		fn("nn.NamedBuffers", nn.NamedBuffers),
		fn("nn.Buffers", nn.Buffers),
		fn("nn.NamedModules", nn.NamedModules),
		fn("nn.Modules", nn.Modules),
		fn("nn.NamedChildren", nn.NamedChildren),
		fn("nn.Children", nn.Children),
		fn("nn.Apply", nn.Apply),
		fn("nn.Train", nn.Train),
		fn("nn.Training", nn.Training),
		fn("nn.To", nn.To).withArgs(func() []any { return []any{nn.NewLinear(2, 2), "meta"} }),
		fn("nn.ToDType", nn.ToDType),
		fn("nn.Repr", nn.Repr), // a nil module prints as None
		fn("nn.RegisterParameter", nn.RegisterParameter).withArgs(func() []any { return []any{nn.NewLinear(2, 2), "gain", f32()} }),
		fn("nn.RegisterBuffer", nn.RegisterBuffer).withArgs(func() []any { return []any{nn.NewLinear(2, 2), "count", f32(), true} }),
		fn("nn.RegisterModule", nn.RegisterModule).withArgs(func() []any { return []any{nn.NewLinear(2, 2), "act", nn.NewLinear(2, 2)} }),
		fn("nn.ClipGradNorm_", nn.ClipGradNorm_).withArgs(func() []any { return []any{params(), 1.0, 2.0, false} }),
		fn("nn.ClipGradValue_", nn.ClipGradValue_).withArgs(func() []any { return []any{params(), 0.5} }),

		fn("optim.NewSGD", optim.NewSGD).withArgs(func() []any { return []any{params()} }),
		fn("optim.NewAdam", optim.NewAdam).withArgs(func() []any { return []any{params()} }),
		fn("optim.NewAdamW", optim.NewAdamW).withArgs(func() []any { return []any{params()} }),
		fn("optim.NewRMSprop", optim.NewRMSprop).withArgs(func() []any { return []any{params()} }),
		fn("optim.NewAdagrad", optim.NewAdagrad).withArgs(func() []any { return []any{params()} }),
		fn("optim.NewAdamax", optim.NewAdamax).withArgs(func() []any { return []any{params()} }),
		fn("optim.NewNAdam", optim.NewNAdam).withArgs(func() []any { return []any{params()} }),
		fn("optim.NewRAdam", optim.NewRAdam).withArgs(func() []any { return []any{params()} }),

		fn("data.NewTensorDataset", data.NewTensorDataset),

		fn("safetensors.Save", safetensors.Save).withArgs(func() []any {
			return []any{filepath.Join(filepath.Dir(savedFile()), "save.safetensors"),
				map[string]*torch.Tensor{"weight": f32()}, nil}
		}),
	}
}

// pkg/data's functions that take tensors are covered too. Its types with
// methods are not in receivers (methods_test.go): pkg/data's
// TestNilReceivers calls each of their methods on nil and zero values.
func init() {
	coveredPackages["data"] = "../../pkg/data"
	for _, typ := range []string{"BatchSampler", "ConcatDataset", "ItemError", "Loader", "RandomSampler",
		"SequentialSampler", "Subset", "TensorDataset", "WeightedRandomSampler"} {
		ignoredTypes["data."+typ] = true
	}
}

// fn starts the table entry of a function.
func fn(label string, f any) callable { return callable{label: label, fn: reflect.ValueOf(f)} }

// withArgs gives the entry valid arguments (nil: the parameter's zero
// value), made afresh for each case.
func (c callable) withArgs(args func() []any) callable {
	c.args = args
	return c
}

// acceptNil marks arguments where nil is PyTorch's None.
func (c callable) acceptNil(args ...int) callable {
	c.nilOK = args
	return c
}

// funcCases generates the cases of the functions of tensorFuncs.
func funcCases() []badCase {
	var out []badCase
	fs := tensorFuncs()
	sort.Slice(fs, func(i, j int) bool { return fs[i].label < fs[j].label })
	for _, f := range fs {
		out = append(out, f.cases()...)
	}
	return out
}

// boolMask is a bool [2, 2] tensor.
func boolMask() *torch.Tensor {
	return torch.FromSlice([]bool{true, false, false, true}, torch.WithShape(2, 2))
}

// classes is the int64 class indices [0, 1, 2, 1].
func classes() *torch.Tensor { return torch.FromSlice([]int64{0, 1, 2, 1}) }
