// Package data loads data sets in batches, as PyTorch's torch.utils.data:
// datasets (Dataset, IterableDataset, TensorDataset, Subset,
// ConcatDataset, RandomSplit), samplers (SequentialSampler, RandomSampler,
// WeightedRandomSampler, BatchSampler), the default collate function and a
// Loader that reads batches with worker goroutines.
//
// Random choices draw from torch's generators (PyTorch's mt19937) in the
// order PyTorch 1.13 draws them, so that the same seed gives the same
// splits, samples and batch order as PyTorch: RandomSplit and
// RandomSampler give torch.randperm's and torch.randint's values, and a
// shuffling Loader draws, per epoch, the seeds torch.utils.data.DataLoader
// draws. The batches a Loader yields are in the sampler's order whatever
// the number of workers.
//
// Indices are Go indices: from 0 to Len()-1. Negative indices, which
// Python reads from the end, are out of range here.
package data
