package conformance

import (
	"github.com/mindtorch/mindtorch/pkg/nn"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// The ops of testdata/losses.json (scripts/golden/losses.py): the losses
// of pkg/nn/loss_more.go under the names of torch.nn.functional. A case's
// args are the loss's keyword arguments; a weight, when the case has one,
// is the input after the loss's own.
func init() {
	for name, l := range map[string]struct {
		n int // the loss's inputs, before a weight
		f func(in []*torch.Tensor, opts []nn.LossOption) *torch.Tensor
	}{
		"kl_div": {2, func(in []*torch.Tensor, o []nn.LossOption) *torch.Tensor { return nn.KLDiv(in[0], in[1], o...) }},
		"cosine_embedding_loss": {3, func(in []*torch.Tensor, o []nn.LossOption) *torch.Tensor {
			return nn.CosineEmbedding(in[0], in[1], in[2], o...)
		}},
		"margin_ranking_loss": {3, func(in []*torch.Tensor, o []nn.LossOption) *torch.Tensor {
			return nn.MarginRanking(in[0], in[1], in[2], o...)
		}},
		"triplet_margin_loss": {3, func(in []*torch.Tensor, o []nn.LossOption) *torch.Tensor {
			return nn.TripletMargin(in[0], in[1], in[2], o...)
		}},
		"hinge_embedding_loss": {2, func(in []*torch.Tensor, o []nn.LossOption) *torch.Tensor {
			return nn.HingeEmbedding(in[0], in[1], o...)
		}},
		"poisson_nll_loss": {2, func(in []*torch.Tensor, o []nn.LossOption) *torch.Tensor { return nn.PoissonNLL(in[0], in[1], o...) }},
		"gaussian_nll_loss": {3, func(in []*torch.Tensor, o []nn.LossOption) *torch.Tensor {
			return nn.GaussianNLL(in[0], in[1], in[2], o...)
		}},
		"multilabel_soft_margin_loss": {2, func(in []*torch.Tensor, o []nn.LossOption) *torch.Tensor {
			return nn.MultiLabelSoftMargin(in[0], in[1], o...)
		}},
		"multi_margin_loss": {2, func(in []*torch.Tensor, o []nn.LossOption) *torch.Tensor { return nn.MultiMargin(in[0], in[1], o...) }},
		"soft_margin_loss":  {2, func(in []*torch.Tensor, o []nn.LossOption) *torch.Tensor { return nn.SoftMargin(in[0], in[1], o...) }},
	} {
		Register(name, func(in []*torch.Tensor, a Args) []*torch.Tensor {
			opts := lossOptions(a)
			if len(in) > l.n {
				opts = append(opts, nn.WithWeight(in[l.n]))
			}
			return One(l.f(in[:l.n], opts))
		})
	}
}

// ctc_loss takes its lengths, blank and zero_infinity as arguments;
// ctc_loss_logits is ctc_loss of log_softmax of its input.
func init() {
	ctc := func(in []*torch.Tensor, a Args) []*torch.Tensor {
		opts := lossOptions(a)
		if a.Has("blank") {
			opts = append(opts, nn.WithBlank(a.I("blank")))
		}
		opts = append(opts, nn.WithZeroInfinity(a.B("zero_infinity")))
		return One(nn.CTC(in[0], in[1], a.Ints("input_lengths"), a.Ints("target_lengths"), opts...))
	}
	Register("ctc_loss", ctc)
	Register("ctc_loss_logits", func(in []*torch.Tensor, a Args) []*torch.Tensor {
		return ctc([]*torch.Tensor{in[0].LogSoftmax(in[0].Dim() - 1), in[1]}, a)
	})
}

// lossOptions reads a loss case's keyword arguments; a reduction PyTorch
// does not know becomes one MindTorch does not know either.
func lossOptions(a Args) []nn.LossOption {
	var opts []nn.LossOption
	if a.Has("reduction") {
		r, ok := map[string]nn.Reduction{"mean": nn.Mean, "sum": nn.Sum, "none": nn.None, "batchmean": nn.BatchMean}[a.S("reduction")]
		if !ok {
			r = -1
		}
		opts = append(opts, nn.WithReduction(r))
	}
	for k, opt := range map[string]func(float64) nn.LossOption{"margin": nn.WithMargin, "p": nn.WithP, "eps": nn.WithEps} {
		if a.Has(k) {
			opts = append(opts, opt(a.F(k)))
		}
	}
	for k, opt := range map[string]func(bool) nn.LossOption{"swap": nn.WithSwap, "log_target": nn.WithLogTarget,
		"log_input": nn.WithLogInput, "full": nn.WithFull} {
		if a.Has(k) {
			opts = append(opts, opt(a.B(k)))
		}
	}
	return opts
}
