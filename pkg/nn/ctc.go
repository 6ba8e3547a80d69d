package nn

import (
	"math"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// The connectionist temporal classification loss. PyTorch computes it in
// one kernel (the forward recursion over log alpha) and its gradient in
// another; here the same recursion is written with tensor ops, one step
// of T per time step over all samples and states at once, so that it runs
// on every device, and its gradient is the composition's, adjusted to the
// one PyTorch's kernel returns (see ctcGradHook).

// ctcOptions holds CTC's options.
type ctcOptions struct {
	blank        int
	zeroInfinity bool
}

// WithBlank sets CTC's blank label (default 0).
func WithBlank(b int) LossOption { return func(c *lossConfig) { c.ctc.blank = b } }

// WithZeroInfinity makes CTC's infinite losses (a target no alignment of
// the input can produce) and their gradients zero (default false).
func WithZeroInfinity(on bool) LossOption {
	return func(c *lossConfig) { c.ctc.zeroInfinity = on }
}

// ctcPlan is a checked CTC call: the sizes and, per sample, the input
// length and the target's labels.
type ctcPlan struct {
	batched bool
	T, N, C int
	il      []int
	labels  [][]int64
	states  int // 2 * (the longest target) + 1
}

// CTC is the connectionist temporal classification loss of
// log-probabilities logProbs ([T, N, C]: time, batch, classes, as
// log_softmax gives them; or [T, C] for one sample) for targets, as
// F.ctc_loss: the negative log of the summed probability of every
// alignment of the input to the target (labels repeated, blanks between).
// targets is [N, S] (each row padded past its length) or the N targets
// concatenated ([sum of targetLengths]; [S] for one sample), of an
// integer dtype (or a floating one, truncated, as PyTorch accepts);
// inputLengths and targetLengths give each sample's lengths (one each for
// one sample). Options: WithBlank, WithZeroInfinity, WithReduction: Mean
// (the default) divides each loss by its target length (at least 1) and
// takes the mean over the batch.
//
// The gradient is PyTorch's: for log-probabilities that do not come from
// log_softmax it is not the derivative of the loss with respect to them
// but that of the loss of their log_softmax (the two agree when they are
// normalised), and it is NaN for an infinite loss unless WithZeroInfinity.
// Where PyTorch 1.13 reads uninitialised memory (an input length of 0, a
// negative length, a label out of range), this gives 2.x's loss (0 for an
// empty target, else infinite) or an error.
func CTC(logProbs, targets *torch.Tensor, inputLengths, targetLengths []int, opts ...LossOption) *torch.Tensor {
	const op = "ctc_loss"
	c, err := configure(op, opts, logProbs, targets)
	if err != nil {
		return torch.Failed(err)
	}
	ins := []*torch.Tensor{logProbs, targets}
	p, err := planCTC(op, ins, c.ctc.blank, inputLengths, targetLengths)
	if err != nil {
		return torch.Failed(err)
	}
	lp := logProbs
	if !p.batched {
		lp = lp.Unsqueeze(1)
	} else {
		lp = lp.View(p.T, p.N, p.C) // a node of its own for the gradient's hook
	}
	nll := p.forward(lp, c.ctc.blank)
	if c.ctc.zeroInfinity {
		nll = nll.MaskedFill(nll.EqScalar(math.Inf(1)), 0)
	}
	if lp.RequiresGrad() {
		if err := lp.RegisterHook(ctcGradHook(lp, nll, p, c.ctc.zeroInfinity)); err != nil {
			return torch.Failed(err)
		}
	}
	var l *torch.Tensor
	switch c.reduction {
	case Mean:
		tl := make([]float64, p.N)
		for n, lab := range p.labels {
			tl[n] = float64(max(len(lab), 1))
		}
		l = nll.Div(p.tensor(tl, nll)).Mean()
	case Sum:
		l = nll.Sum()
	default:
		l = nll
		if !p.batched {
			l = l.Reshape()
		}
	}
	return named(op, ins, l)
}

// planCTC checks a CTC call as PyTorch's ctc_loss_cpu does, with its
// messages, and reads the targets to the host.
func planCTC(op string, ins []*torch.Tensor, blank int, il, tl []int) (*ctcPlan, error) {
	x, y := ins[0], ins[1]
	fail := func(kind error, format string, args ...any) (*ctcPlan, error) {
		return nil, torch.NewError(op, kind, ins, format, args...)
	}
	if dt := x.DType(); dt != torch.Float32 && dt != torch.Float64 {
		return fail(torch.ErrDType, "\"ctc_loss_cpu\" not implemented for '%s'", kernel.PyName(dt))
	}
	if x.Dim() != 2 && x.Dim() != 3 {
		return fail(torch.ErrShape, "log_probs must be 2-D (time, classes) or 3-D (time, batch, classes), but got %s",
			kernel.ShapeString(x.Shape()))
	}
	p := &ctcPlan{batched: x.Dim() == 3, T: x.Shape()[0], N: 1, C: x.Shape()[x.Dim()-1]}
	if p.batched {
		p.N = x.Shape()[1]
	}
	switch {
	case len(il) != p.N:
		return fail(torch.ErrShape, "input_lengths must be of size batch_size")
	case len(tl) != p.N:
		return fail(torch.ErrShape, "target_lengths must be of size batch_size")
	case blank < 0 || blank >= p.C:
		return fail(torch.ErrArgument, "blank must be in label range")
	case y.Dim() < 1 || y.Dim() > 2 || (!p.batched && y.Dim() != 1):
		return fail(torch.ErrShape, "Expected 1 to 2 dimensions, but got %d-dimensional tensor for argument #2 'targets' "+
			"(while checking arguments for ctc_loss_cpu)", y.Dim())
	case y.DType() == torch.Bool:
		return fail(torch.ErrDType, "ctc_loss: targets must be of an integer dtype, but got %s", kernel.PyName(y.DType()))
	}
	total := 0
	for n := range p.N {
		if tl[n] < 0 {
			return fail(torch.ErrShape, "Expected target_lengths to have value at least 0, but got value %d", tl[n])
		}
		if il[n] < 0 || il[n] > p.T {
			return fail(torch.ErrShape, "Expected input_lengths to have value at most %d, but got value %d "+
				"(while checking arguments for ctc_loss_cpu)", p.T, il[n])
		}
		total += tl[n]
	}
	stride := 0 // a padded row's length, or 0 when the targets are concatenated
	if y.Dim() == 2 || !p.batched {
		if y.Dim() == 2 && y.Shape()[0] != p.N {
			return fail(torch.ErrShape, "Expected tensor to have size %d at dimension 0, but got size %d for argument #2 'targets' "+
				"(while checking arguments for ctc_loss_cpu)", p.N, y.Shape()[0])
		}
		stride = y.Shape()[y.Dim()-1]
		for n := range p.N {
			if tl[n] > stride {
				return fail(torch.ErrShape, "Expected tensor to have size at least %d at dimension %d, but got size %d for argument #2 "+
					"'targets' (while checking arguments for ctc_loss_cpu)", tl[n], y.Dim()-1, stride)
			}
		}
	} else if y.Shape()[0] != total {
		return fail(torch.ErrShape, "Expected tensor to have size %d at dimension 0, but got size %d for argument #2 'targets' "+
			"(while checking arguments for ctc_loss_cpu)", total, y.Shape()[0])
	}
	all := make([]int64, y.Numel()) // on the meta device, no labels: the blank's index
	if !y.IsMeta() {
		var err error
		if all, err = torch.ToSlice[int64](y.ToDType(torch.Int64)); err != nil {
			return nil, err
		}
	}
	p.il, p.labels, p.states = il, make([][]int64, p.N), 1
	at := 0
	for n := range p.N {
		if stride > 0 {
			at = n * stride
		}
		p.labels[n] = all[at : at+tl[n]]
		at += tl[n]
		for _, v := range p.labels[n] {
			if v < 0 || v >= int64(p.C) {
				return fail(torch.ErrIndex, "target label %d out of range for %d classes", v, p.C)
			}
		}
		p.states = max(p.states, 2*tl[n]+1)
	}
	return p, nil
}

// tensor makes a tensor of like's dtype and device from host values.
func (p *ctcPlan) tensor(v []float64, like *torch.Tensor, shape ...int) *torch.Tensor {
	t := torch.FromSlice(v).ToDType(like.DType())
	if len(shape) > 0 {
		t = t.Reshape(shape...)
	}
	d, err := t.ToDevice(like.Device())
	if err != nil {
		return torch.Failed(err)
	}
	return d
}

// mask makes a bool tensor on like's device from host values.
func (p *ctcPlan) mask(v []bool, like *torch.Tensor, shape ...int) *torch.Tensor {
	d, err := torch.FromSlice(v).Reshape(shape...).ToDevice(like.Device())
	if err != nil {
		return torch.Failed(err)
	}
	return d
}

// forward runs the recursion over log alpha, as ctc_loss_cpu_template:
// state s of sample n is the blank for even s and label (s-1)/2 for odd s;
// alpha at time t of state s is the log of the probability of the
// alignments of the first t+1 inputs that end in s, from s, s-1, and s-2
// when s is a label other than the one two states before. A sample's
// states stay as they are once its input has ended. It returns the
// negative log-likelihood of each sample ([N]).
func (p *ctcPlan) forward(lp *torch.Tensor, blank int) *torch.Tensor {
	N, S := p.N, p.states
	ext := make([]int64, N*S)
	skip := make([]bool, N*S)
	start := make([]bool, N*S)
	ends := make([]int64, 2*N)
	oneEnd := make([]bool, 2*N)
	emptyRun := make([]bool, N) // input and target both empty: probability 1
	for n, lab := range p.labels {
		for s := range S {
			ext[n*S+s] = int64(blank)
			if s%2 == 1 && s/2 < len(lab) {
				ext[n*S+s] = lab[s/2]
			}
			skip[n*S+s] = s%2 == 1 && s >= 3 && ext[n*S+s] != ext[n*S+s-2]
			start[n*S+s] = p.il[n] > 0 && (s == 0 || (s == 1 && len(lab) > 0))
		}
		ends[2*n], ends[2*n+1] = int64(2*len(lab)), int64(max(2*len(lab)-1, 0))
		oneEnd[2*n+1] = len(lab) == 0
		emptyRun[n] = p.il[n] == 0 && len(lab) == 0
	}
	extT, err := torch.FromSlice(ext).Reshape(N, S).ToDevice(lp.Device())
	if err != nil {
		return torch.Failed(err)
	}
	// lpExt[t, n, s] is the log-probability of state s's label at time t.
	lpExt := lp.Gather(2, extT.Unsqueeze(0).Expand(p.T, N, S))
	skipT, startT := p.mask(skip, lp, N, S), p.mask(start, lp, N, S)
	negInf := torch.Full([]int{N, S}, math.Inf(-1), torch.WithDType(lp.DType()), torch.OnDevice(lp.Device()))
	shift := func(a *torch.Tensor, by int) *torch.Tensor {
		if by >= S {
			return negInf
		}
		return torch.Cat([]*torch.Tensor{negInf.Narrow(1, 0, by), a.Narrow(1, 0, S-by)}, 1)
	}
	var alpha *torch.Tensor
	if p.T == 0 {
		alpha = negInf
	} else {
		alpha = torch.Where(startT, lpExt.Select(0, 0), negInf)
	}
	live := make([]bool, N)
	for t := 1; t < p.T; t++ {
		for n := range N {
			live[n] = t < p.il[n]
		}
		a2 := shift(alpha, 1)
		a3 := torch.Where(skipT, shift(alpha, 2), negInf)
		next := logSumExp3(alpha, a2, a3).Add(lpExt.Select(0, t))
		alpha = torch.Where(p.mask(live, lp, N, 1), next, alpha)
	}
	fin := alpha.Gather(1, mustDevice(torch.FromSlice(ends).Reshape(N, 2), lp)).MaskedFill(p.mask(oneEnd, lp, N, 2), math.Inf(-1))
	ll := logSumExp3(fin.Select(1, 0), fin.Select(1, 1), nil)
	return ll.MaskedFill(p.mask(emptyRun, lp, N), 0).Neg()
}

// logSumExp3 is log(exp(a) + exp(b) + exp(c)) (c nil for two terms) as
// PyTorch's CTC kernel computes it: relative to the largest term, or to 0
// when all are -inf. When all are -inf the result is -inf with a zero
// gradient, not NaN: such states are unreachable and must not spoil the
// gradient of the reachable ones.
func logSumExp3(a, b, c *torch.Tensor) *torch.Tensor {
	m := a.Maximum(b)
	if c != nil {
		m = m.Maximum(c)
	}
	m = m.MaskedFill(m.EqScalar(math.Inf(-1)), 0)
	s := a.Sub(m).Exp().Add(b.Sub(m).Exp())
	if c != nil {
		s = s.Add(c.Sub(m).Exp())
	}
	none := s.EqScalar(0)
	return s.MaskedFill(none, 1).Log().Add(m).MaskedFill(none, math.Inf(-1))
}

// mustDevice moves t to like's device, or fails.
func mustDevice(t, like *torch.Tensor) *torch.Tensor {
	d, err := t.ToDevice(like.Device())
	if err != nil {
		return torch.Failed(err)
	}
	return d
}

// ctcGradHook turns the gradient of the composition with respect to the
// log-probabilities lp ([T, N, C]) into the one PyTorch's
// ctc_loss_backward returns: g - exp(lp) sum_c g. At every time step of a
// sample's input, sum_c g is minus the gradient flowing into the sample's
// loss (the probabilities of its alignments sum to 1), so this adds
// exp(lp) times that gradient, as PyTorch's kernel does; past the input
// both terms are 0. An infinite loss (no alignment) has a zero gradient
// from the composition; PyTorch's is NaN over the sample's input unless
// zero_infinity, and so is this one.
func ctcGradHook(lp, nll *torch.Tensor, p *ctcPlan, zeroInfinity bool) func(*torch.Tensor) *torch.Tensor {
	probs := lp.Detach()
	loss := nll.Detach()
	return func(g *torch.Tensor) *torch.Tensor {
		r := g.Sub(probs.Exp().Mul(g.SumKeepDim(2)))
		if zeroInfinity || loss.IsMeta() {
			return r
		}
		inf, err := torch.ToSlice[bool](loss.EqScalar(math.Inf(1)))
		if err != nil {
			return torch.Failed(err)
		}
		nan := make([]bool, p.T*p.N)
		some := false
		for n, bad := range inf {
			for t := 0; bad && t < p.il[n]; t++ {
				nan[t*p.N+n], some = true, true
			}
		}
		if !some {
			return r
		}
		return r.MaskedFill(p.mask(nan, r, p.T, p.N, 1), math.NaN())
	}
}
