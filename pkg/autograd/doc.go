// Package autograd is the engine of reverse-mode automatic differentiation:
// the graph of nodes that ops record, the grad mode that says whether they
// record, and the backward pass that runs the nodes in dependency order.
//
// The package knows nothing of tensors. A gradient is an opaque Value (a
// *torch.Tensor in practice), a node's backward function is a closure that
// pkg/torch writes next to each op, and summing two gradients is a function
// the caller passes in. So the engine sits below pkg/torch and has no
// dependencies of its own.
package autograd
