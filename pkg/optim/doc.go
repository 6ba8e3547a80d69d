// Package optim holds the optimizers of torch.optim: SGD (momentum,
// dampening, Nesterov, weight decay), Adam and AdamW (with AMSGrad),
// RMSprop, Adagrad, Adamax, NAdam and RAdam. Each updates its parameters in
// place from their gradients, with PyTorch's single-tensor (foreach=False)
// arithmetic, so a seeded run follows PyTorch's step for step. Parameters
// come in groups (AddParamGroup) whose options override the defaults, each
// parameter has its own state, and StateDict/LoadStateDict save and restore
// both with PyTorch's structure. Package lrscheduler schedules the groups'
// learning rates.
//
// Hyperparameters are options, as keyword arguments in PyTorch: an option
// not given takes PyTorch's default, and a given value, zero included,
// means what it says. Values PyTorch refuses, NaN and options an optimizer
// does not have are errors.
//
//	opt, err := optim.NewSGD(nn.Parameters(model), optim.LR(0.1), optim.Momentum(0.9))
//	for ... {
//		opt.ZeroGrad()
//		loss := nn.CrossEntropy(model.Forward(x), y)
//		if err := loss.Backward(); err != nil { ... }
//		if err := opt.Step(); err != nil { ... }
//	}
//
// Step checks every gradient first (an error it carries, its shape, dtype
// and device against its parameter's), so a bad gradient changes nothing,
// and reports any failure while updating. It updates detached aliases of
// the parameters, so it records nothing whatever the calling goroutine's
// grad mode is, and optimizers in different goroutines never interfere.
package optim
