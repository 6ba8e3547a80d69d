package optim

import "github.com/mindtorch/mindtorch/pkg/torch"

// The methods every optimizer shares, on each type so that a nil
// optimizer's methods report an error instead of panicking.

// base is o's core (nil for a nil optimizer).
func (o *SGD) base() *core {
	if o == nil {
		return nil
	}
	return &o.core
}

// ZeroGrad drops the parameters' gradients (zero_grad(set_to_none=True)).
func (o *SGD) ZeroGrad() { o.base().zeroGrad(true) }

// ZeroGradSetToNone is zero_grad(set_to_none): true drops the gradients,
// false fills them with zeros in place (detaching any that has a graph).
func (o *SGD) ZeroGradSetToNone(setToNone bool) { o.base().zeroGrad(setToNone) }

// LR is the first group's learning rate (0 for a nil optimizer).
func (o *SGD) LR() float64 { return o.base().learningRate() }

// SetLR changes every group's learning rate; a negative, infinite or NaN
// rate is an error and changes nothing.
func (o *SGD) SetLR(lr float64) error { return o.base().setLR("SGD", lr) }

// ParamGroups are the parameter groups, in order (the groups themselves,
// whose changes apply to the next steps).
func (o *SGD) ParamGroups() []*ParamGroup { return o.base().paramGroups() }

// StateDict is the state as PyTorch's state_dict(): per-parameter state by
// index (the optimizer's own tensors, not copies) and the groups'
// hyperparameters.
func (o *SGD) StateDict() (*StateDict, error) { return o.base().stateDict("SGD") }

// LoadStateDict restores a state from StateDict: the groups must match in
// number and sizes; the state's tensors are copied. Nothing changes on an
// error.
func (o *SGD) LoadStateDict(sd *StateDict) error { return o.base().loadStateDict("SGD", sd) }

// AddParamGroup adds a group of parameters whose options override the
// defaults given to the constructor; a parameter already in a group is an
// error.
func (o *SGD) AddParamGroup(ps []*torch.Tensor, opts ...Option) error {
	return o.base().addGroup("SGD", ps, opts)
}

// base is o's core (nil for a nil optimizer).
func (o *Adam) base() *core {
	if o == nil {
		return nil
	}
	return &o.core
}

// ZeroGrad drops the parameters' gradients (zero_grad(set_to_none=True)).
func (o *Adam) ZeroGrad() { o.base().zeroGrad(true) }

// ZeroGradSetToNone is zero_grad(set_to_none): true drops the gradients,
// false fills them with zeros in place (detaching any that has a graph).
func (o *Adam) ZeroGradSetToNone(setToNone bool) { o.base().zeroGrad(setToNone) }

// LR is the first group's learning rate (0 for a nil optimizer).
func (o *Adam) LR() float64 { return o.base().learningRate() }

// SetLR changes every group's learning rate; a negative, infinite or NaN
// rate is an error and changes nothing.
func (o *Adam) SetLR(lr float64) error { return o.base().setLR(o.name(), lr) }

// ParamGroups are the parameter groups, in order (the groups themselves,
// whose changes apply to the next steps).
func (o *Adam) ParamGroups() []*ParamGroup { return o.base().paramGroups() }

// StateDict is the state as PyTorch's state_dict(): per-parameter state by
// index (the optimizer's own tensors, not copies) and the groups'
// hyperparameters.
func (o *Adam) StateDict() (*StateDict, error) { return o.base().stateDict(o.name()) }

// LoadStateDict restores a state from StateDict: the groups must match in
// number and sizes; the state's tensors are copied. Nothing changes on an
// error.
func (o *Adam) LoadStateDict(sd *StateDict) error { return o.base().loadStateDict(o.name(), sd) }

// AddParamGroup adds a group of parameters whose options override the
// defaults given to the constructor; a parameter already in a group is an
// error.
func (o *Adam) AddParamGroup(ps []*torch.Tensor, opts ...Option) error {
	return o.base().addGroup(o.name(), ps, opts)
}

// base is o's core (nil for a nil optimizer).
func (o *RMSprop) base() *core {
	if o == nil {
		return nil
	}
	return &o.core
}

// ZeroGrad drops the parameters' gradients (zero_grad(set_to_none=True)).
func (o *RMSprop) ZeroGrad() { o.base().zeroGrad(true) }

// ZeroGradSetToNone is zero_grad(set_to_none): true drops the gradients,
// false fills them with zeros in place (detaching any that has a graph).
func (o *RMSprop) ZeroGradSetToNone(setToNone bool) { o.base().zeroGrad(setToNone) }

// LR is the first group's learning rate (0 for a nil optimizer).
func (o *RMSprop) LR() float64 { return o.base().learningRate() }

// SetLR changes every group's learning rate; a negative, infinite or NaN
// rate is an error and changes nothing.
func (o *RMSprop) SetLR(lr float64) error { return o.base().setLR("RMSprop", lr) }

// ParamGroups are the parameter groups, in order (the groups themselves,
// whose changes apply to the next steps).
func (o *RMSprop) ParamGroups() []*ParamGroup { return o.base().paramGroups() }

// StateDict is the state as PyTorch's state_dict(): per-parameter state by
// index (the optimizer's own tensors, not copies) and the groups'
// hyperparameters.
func (o *RMSprop) StateDict() (*StateDict, error) { return o.base().stateDict("RMSprop") }

// LoadStateDict restores a state from StateDict: the groups must match in
// number and sizes; the state's tensors are copied. Nothing changes on an
// error.
func (o *RMSprop) LoadStateDict(sd *StateDict) error { return o.base().loadStateDict("RMSprop", sd) }

// AddParamGroup adds a group of parameters whose options override the
// defaults given to the constructor; a parameter already in a group is an
// error.
func (o *RMSprop) AddParamGroup(ps []*torch.Tensor, opts ...Option) error {
	return o.base().addGroup("RMSprop", ps, opts)
}

// base is o's core (nil for a nil optimizer).
func (o *Adagrad) base() *core {
	if o == nil {
		return nil
	}
	return &o.core
}

// ZeroGrad drops the parameters' gradients (zero_grad(set_to_none=True)).
func (o *Adagrad) ZeroGrad() { o.base().zeroGrad(true) }

// ZeroGradSetToNone is zero_grad(set_to_none): true drops the gradients,
// false fills them with zeros in place (detaching any that has a graph).
func (o *Adagrad) ZeroGradSetToNone(setToNone bool) { o.base().zeroGrad(setToNone) }

// LR is the first group's learning rate (0 for a nil optimizer).
func (o *Adagrad) LR() float64 { return o.base().learningRate() }

// SetLR changes every group's learning rate; a negative, infinite or NaN
// rate is an error and changes nothing.
func (o *Adagrad) SetLR(lr float64) error { return o.base().setLR("Adagrad", lr) }

// ParamGroups are the parameter groups, in order (the groups themselves,
// whose changes apply to the next steps).
func (o *Adagrad) ParamGroups() []*ParamGroup { return o.base().paramGroups() }

// StateDict is the state as PyTorch's state_dict(): per-parameter state by
// index (the optimizer's own tensors, not copies) and the groups'
// hyperparameters.
func (o *Adagrad) StateDict() (*StateDict, error) { return o.base().stateDict("Adagrad") }

// LoadStateDict restores a state from StateDict: the groups must match in
// number and sizes; the state's tensors are copied. Nothing changes on an
// error.
func (o *Adagrad) LoadStateDict(sd *StateDict) error { return o.base().loadStateDict("Adagrad", sd) }

// base is o's core (nil for a nil optimizer).
func (o *Adamax) base() *core {
	if o == nil {
		return nil
	}
	return &o.core
}

// ZeroGrad drops the parameters' gradients (zero_grad(set_to_none=True)).
func (o *Adamax) ZeroGrad() { o.base().zeroGrad(true) }

// ZeroGradSetToNone is zero_grad(set_to_none): true drops the gradients,
// false fills them with zeros in place (detaching any that has a graph).
func (o *Adamax) ZeroGradSetToNone(setToNone bool) { o.base().zeroGrad(setToNone) }

// LR is the first group's learning rate (0 for a nil optimizer).
func (o *Adamax) LR() float64 { return o.base().learningRate() }

// SetLR changes every group's learning rate; a negative, infinite or NaN
// rate is an error and changes nothing.
func (o *Adamax) SetLR(lr float64) error { return o.base().setLR("Adamax", lr) }

// ParamGroups are the parameter groups, in order (the groups themselves,
// whose changes apply to the next steps).
func (o *Adamax) ParamGroups() []*ParamGroup { return o.base().paramGroups() }

// StateDict is the state as PyTorch's state_dict(): per-parameter state by
// index (the optimizer's own tensors, not copies) and the groups'
// hyperparameters.
func (o *Adamax) StateDict() (*StateDict, error) { return o.base().stateDict("Adamax") }

// LoadStateDict restores a state from StateDict: the groups must match in
// number and sizes; the state's tensors are copied. Nothing changes on an
// error.
func (o *Adamax) LoadStateDict(sd *StateDict) error { return o.base().loadStateDict("Adamax", sd) }

// AddParamGroup adds a group of parameters whose options override the
// defaults given to the constructor; a parameter already in a group is an
// error.
func (o *Adamax) AddParamGroup(ps []*torch.Tensor, opts ...Option) error {
	return o.base().addGroup("Adamax", ps, opts)
}

// base is o's core (nil for a nil optimizer).
func (o *NAdam) base() *core {
	if o == nil {
		return nil
	}
	return &o.core
}

// ZeroGrad drops the parameters' gradients (zero_grad(set_to_none=True)).
func (o *NAdam) ZeroGrad() { o.base().zeroGrad(true) }

// ZeroGradSetToNone is zero_grad(set_to_none): true drops the gradients,
// false fills them with zeros in place (detaching any that has a graph).
func (o *NAdam) ZeroGradSetToNone(setToNone bool) { o.base().zeroGrad(setToNone) }

// LR is the first group's learning rate (0 for a nil optimizer).
func (o *NAdam) LR() float64 { return o.base().learningRate() }

// SetLR changes every group's learning rate; a negative, infinite or NaN
// rate is an error and changes nothing.
func (o *NAdam) SetLR(lr float64) error { return o.base().setLR("NAdam", lr) }

// ParamGroups are the parameter groups, in order (the groups themselves,
// whose changes apply to the next steps).
func (o *NAdam) ParamGroups() []*ParamGroup { return o.base().paramGroups() }

// StateDict is the state as PyTorch's state_dict(): per-parameter state by
// index (the optimizer's own tensors, not copies) and the groups'
// hyperparameters.
func (o *NAdam) StateDict() (*StateDict, error) { return o.base().stateDict("NAdam") }

// LoadStateDict restores a state from StateDict: the groups must match in
// number and sizes; the state's tensors are copied. Nothing changes on an
// error.
func (o *NAdam) LoadStateDict(sd *StateDict) error { return o.base().loadStateDict("NAdam", sd) }

// AddParamGroup adds a group of parameters whose options override the
// defaults given to the constructor; a parameter already in a group is an
// error.
func (o *NAdam) AddParamGroup(ps []*torch.Tensor, opts ...Option) error {
	return o.base().addGroup("NAdam", ps, opts)
}

// base is o's core (nil for a nil optimizer).
func (o *RAdam) base() *core {
	if o == nil {
		return nil
	}
	return &o.core
}

// ZeroGrad drops the parameters' gradients (zero_grad(set_to_none=True)).
func (o *RAdam) ZeroGrad() { o.base().zeroGrad(true) }

// ZeroGradSetToNone is zero_grad(set_to_none): true drops the gradients,
// false fills them with zeros in place (detaching any that has a graph).
func (o *RAdam) ZeroGradSetToNone(setToNone bool) { o.base().zeroGrad(setToNone) }

// LR is the first group's learning rate (0 for a nil optimizer).
func (o *RAdam) LR() float64 { return o.base().learningRate() }

// SetLR changes every group's learning rate; a negative, infinite or NaN
// rate is an error and changes nothing.
func (o *RAdam) SetLR(lr float64) error { return o.base().setLR("RAdam", lr) }

// ParamGroups are the parameter groups, in order (the groups themselves,
// whose changes apply to the next steps).
func (o *RAdam) ParamGroups() []*ParamGroup { return o.base().paramGroups() }

// StateDict is the state as PyTorch's state_dict(): per-parameter state by
// index (the optimizer's own tensors, not copies) and the groups'
// hyperparameters.
func (o *RAdam) StateDict() (*StateDict, error) { return o.base().stateDict("RAdam") }

// LoadStateDict restores a state from StateDict: the groups must match in
// number and sizes; the state's tensors are copied. Nothing changes on an
// error.
func (o *RAdam) LoadStateDict(sd *StateDict) error { return o.base().loadStateDict("RAdam", sd) }

// AddParamGroup adds a group of parameters whose options override the
// defaults given to the constructor; a parameter already in a group is an
// error.
func (o *RAdam) AddParamGroup(ps []*torch.Tensor, opts ...Option) error {
	return o.base().addGroup("RAdam", ps, opts)
}
