// Package autograd is the engine of reverse-mode automatic differentiation:
// the graph of nodes that ops record, the grad mode that says whether they
// record, and the backward pass that runs the nodes in dependency order.
//
// The package knows nothing of tensors. A gradient is an opaque Value (a
// *torch.Tensor in practice), a node's backward function is a closure that
// pkg/torch writes next to each op, and summing two gradients is a function
// the caller passes in. So the engine sits below pkg/torch and has no
// dependencies of its own beyond reading goroutine ids.
//
// # Grad mode belongs to the goroutine
//
// PyTorch keeps grad mode per thread; here it is kept per goroutine, so
// goroutines that train independent models, serve under NoGrad or switch
// the mode never change what another goroutine records. Go has no
// goroutine-local storage: the mode lives in an internal/goroutine.Local,
// a table keyed by goroutine id (github.com/petermattis/goid, a read of
// the runtime's goroutine pointer, checked by that package's tests against
// the id in the runtime's stack traces), holding only the goroutines whose
// recording is off.
//
// The cost per op: an op whose inputs do not require gradients never asks.
// One that does asks IsGradEnabled once: about 2 ns while no goroutine has
// recording off (one atomic load), about 10 ns while some goroutine does
// (a goroutine id and a sync.Map lookup); BenchmarkIsGradEnabled measures
// both. A goroutine started inside NoGrad starts with recording on, as a
// thread does in PyTorch.
//
// Alternatives that were set aside: a mode passed with every op (a context
// argument on every call would change the whole API for one bit); a
// process-wide switch (one goroutine's NoGrad silently stopped recording
// for all the others, and optimizers that stepped under it lost other
// goroutines' graphs). Optimizers do not depend on the mode at all: they
// update detached aliases of their parameters, which never record.
package autograd
