// Package nn holds the building blocks of neural networks, as PyTorch's
// torch.nn: modules with parameters (Linear, Embedding, LayerNorm), modules
// without (activations, Dropout, Flatten), Sequential to chain them, loss
// functions, the initialisation schemes of torch.nn.init, and state dicts.
//
// A Module is a struct embedding nn.Base; its parameters, buffers and
// submodules are found in its exported fields (a *torch.Tensor is a
// parameter, or a buffer when tagged nn:"buffer"; a field holding a module
// is a submodule), and functions such as NamedParameters, StateDict,
// LoadStateDict, Train and To walk it. A Layer is a Module with a Forward
// method. Parameters are ordinary tensors that require gradients; an
// optimizer (package optim) updates them in place.
//
//	torch.ManualSeed(0)
//	model := nn.NewSequential(nn.NewLinear(64, 32), nn.ReLU(), nn.NewLinear(32, 10))
//	loss := nn.CrossEntropy(model.Forward(x), target)
//	err := loss.Backward()
//
// Layers are initialised exactly as PyTorch initialises them, from the same
// random generator, so a seeded model starts with PyTorch's weights.
//
// Sequential, ModuleList and ModuleDict hold modules, ParameterList and
// ParameterDict parameters, named by position or key as in PyTorch. Call(m,
// x) is PyTorch's module(x): it runs m's forward pre-hooks, m.Forward and
// its forward hooks (RegisterForwardPreHook, RegisterForwardHook);
// Sequential calls its layers through it, while m.Forward(x), as PyTorch's
// module.forward(x), runs no hook.
package nn
