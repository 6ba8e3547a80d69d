package data

import (
	"context"
	"reflect"
	"testing"

	"github.com/mindtorch/mindtorch/internal/golden"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// goldenFile is testdata/data_loader.json, written by
// scripts/golden/data_loader.py with PyTorch 1.13.
type goldenFile struct {
	Randperm []struct {
		N    int    `json:"n"`
		Seed uint64 `json:"seed"`
		Perm []int  `json:"perm"`
	} `json:"randperm"`
	RandomSplit []struct {
		N         int       `json:"n"`
		Lengths   []int     `json:"lengths"`
		Fractions []float64 `json:"fractions"`
		Seed      uint64    `json:"seed"`
		Indices   [][]int   `json:"indices"`
	} `json:"random_split"`
	RandomSampler []struct {
		N             int     `json:"n"`
		Replacement   bool    `json:"replacement"`
		NumSamples    int     `json:"num_samples"`
		Seed          uint64  `json:"seed"`
		Epochs        [][]int `json:"epochs"`
		ManualSeed    uint64  `json:"manual_seed"`
		DefaultEpochs [][]int `json:"default_epochs"`
		After         []int   `json:"after"`
	} `json:"random_sampler"`
	Weighted []struct {
		Weights     []float64 `json:"weights"`
		NumSamples  int       `json:"num_samples"`
		Replacement bool      `json:"replacement"`
		Seed        uint64    `json:"seed"`
		Epochs      [][]int   `json:"epochs"`
	} `json:"weighted"`
	Loader []struct {
		N              int       `json:"n"`
		BatchSize      int       `json:"batch_size"`
		DropLast       bool      `json:"drop_last"`
		Sequential     bool      `json:"sequential"`
		ManualSeed     uint64    `json:"manual_seed"`
		DefaultEpochs  [][][]int `json:"default_epochs"`
		After          []int     `json:"after"`
		Seed           uint64    `json:"seed"`
		Epochs         [][][]int `json:"epochs"`
		GeneratorAfter []int     `json:"generator_after"`
	} `json:"loader"`
}

func loadGolden(t *testing.T) goldenFile {
	t.Helper()
	var g goldenFile
	if err := golden.Load("data_loader.json", &g); err != nil {
		t.Fatal(err)
	}
	return g
}

// draws returns torch.randint(0, 1000, (4,), generator=g) as ints.
func draws(t *testing.T, g *torch.Generator) []int {
	t.Helper()
	v, err := randint("test", g, 1000, 4)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestGoldenRandperm(t *testing.T) {
	for _, c := range loadGolden(t).Randperm {
		got, err := randperm("test", c.N, torch.NewGenerator(c.Seed))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, c.Perm) {
			t.Errorf("randperm(%d) seed %d = %v, PyTorch %v", c.N, c.Seed, got, c.Perm)
		}
	}
}

func TestGoldenRandomSplit(t *testing.T) {
	for _, c := range loadGolden(t).RandomSplit {
		items := rangeDataset(c.N)
		var parts []*Subset[int]
		var err error
		if c.Fractions != nil {
			parts, err = RandomSplitFractions[int](items, c.Fractions, torch.NewGenerator(c.Seed))
		} else {
			parts, err = RandomSplit[int](items, c.Lengths, torch.NewGenerator(c.Seed))
		}
		if err != nil {
			t.Fatal(err)
		}
		got := make([][]int, len(parts))
		for i, p := range parts {
			got[i] = p.Indices
		}
		if !reflect.DeepEqual(got, c.Indices) {
			t.Errorf("random_split(%d, %v%v) = %v, PyTorch %v", c.N, c.Lengths, c.Fractions, got, c.Indices)
		}
	}
}

func TestGoldenRandomSampler(t *testing.T) {
	for _, c := range loadGolden(t).RandomSampler {
		s, err := NewRandomSampler(c.N, RandomOptions{Replacement: c.Replacement, NumSamples: c.NumSamples, Generator: torch.NewGenerator(c.Seed)})
		if err != nil {
			t.Fatal(err)
		}
		for e, want := range c.Epochs {
			if got, err := s.Indices(); err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("RandomSampler(%d, replacement %v, %d samples) epoch %d = %v, %v; PyTorch %v", c.N, c.Replacement, c.NumSamples, e, got, err, want)
			}
		}
		torch.ManualSeed(c.ManualSeed)
		d, err := NewRandomSampler(c.N, RandomOptions{Replacement: c.Replacement, NumSamples: c.NumSamples})
		if err != nil {
			t.Fatal(err)
		}
		for e, want := range c.DefaultEpochs {
			if got, err := d.Indices(); err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("RandomSampler(%d, replacement %v, %d samples) after manual_seed, epoch %d = %v, %v; PyTorch %v", c.N, c.Replacement, c.NumSamples, e, got, err, want)
			}
		}
		if got := draws(t, nil); !reflect.DeepEqual(got, c.After) {
			t.Errorf("the default generator after the epochs gives %v, PyTorch %v", got, c.After)
		}
	}
}

func TestGoldenWeightedRandomSampler(t *testing.T) {
	for _, c := range loadGolden(t).Weighted {
		s, err := NewWeightedRandomSampler(c.Weights, c.NumSamples, c.Replacement, torch.NewGenerator(c.Seed))
		if err != nil {
			t.Fatal(err)
		}
		for e, want := range c.Epochs {
			if got, err := s.Indices(); err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("WeightedRandomSampler(%d samples, replacement %v) epoch %d = %v, %v; PyTorch %v", c.NumSamples, c.Replacement, e, got, err, want)
			}
		}
	}
}

// epochs runs the loader for two epochs and returns the first tensor of
// each batch as ints.
func epochs(t *testing.T, l *Loader[[]*torch.Tensor, []*torch.Tensor]) [][][]int {
	t.Helper()
	var out [][][]int
	for range 2 {
		var epoch [][]int
		for b, err := range l.All(context.Background()) {
			if err != nil {
				t.Fatal(err)
			}
			epoch = append(epoch, ints(t, b[0]))
		}
		out = append(out, epoch)
	}
	return out
}

func TestGoldenLoader(t *testing.T) {
	for _, c := range loadGolden(t).Loader {
		for _, workers := range []int{0, 1, 4} {
			ds := arangeDataset(t, c.N)
			torch.ManualSeed(c.ManualSeed)
			l, err := NewLoader[[]*torch.Tensor](ds, nil, Options{BatchSize: c.BatchSize, Shuffle: !c.Sequential, DropLast: c.DropLast, Workers: workers})
			if err != nil {
				t.Fatal(err)
			}
			if got := epochs(t, l); !reflect.DeepEqual(got, c.DefaultEpochs) {
				t.Errorf("n %d batch %d drop_last %v, %d workers, after manual_seed(%d): %v, PyTorch %v", c.N, c.BatchSize, c.DropLast, workers, c.ManualSeed, got, c.DefaultEpochs)
			}
			if got := draws(t, nil); !reflect.DeepEqual(got, c.After) {
				t.Errorf("the default generator after the epochs gives %v, PyTorch %v", got, c.After)
			}
			if c.Sequential {
				continue
			}
			g := torch.NewGenerator(c.Seed)
			l, err = NewLoader[[]*torch.Tensor](ds, nil, Options{BatchSize: c.BatchSize, Shuffle: true, DropLast: c.DropLast, Generator: g, Workers: workers})
			if err != nil {
				t.Fatal(err)
			}
			if got := epochs(t, l); !reflect.DeepEqual(got, c.Epochs) {
				t.Errorf("n %d batch %d drop_last %v, %d workers, generator seeded %d: %v, PyTorch %v", c.N, c.BatchSize, c.DropLast, workers, c.Seed, got, c.Epochs)
			}
			if got := draws(t, g); !reflect.DeepEqual(got, c.GeneratorAfter) {
				t.Errorf("the loader's generator after the epochs gives %v, PyTorch %v", got, c.GeneratorAfter)
			}
		}
	}
}
