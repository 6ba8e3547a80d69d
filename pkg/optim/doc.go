// Package optim holds the optimizers of torch.optim: SGD (momentum,
// dampening, Nesterov, weight decay), Adam and AdamW (with AMSGrad). Each
// updates its parameters in place from their gradients, with PyTorch's
// arithmetic, so a seeded run follows PyTorch's step for step.
//
//	opt, err := optim.NewSGD(nn.Parameters(model), optim.SGDConfig{LR: 0.1, Momentum: 0.9})
//	for ... {
//		opt.ZeroGrad()
//		loss := nn.CrossEntropy(model.Forward(x), y)
//		if err := loss.Backward(); err != nil { ... }
//		if err := opt.Step(); err != nil { ... }
//	}
package optim
