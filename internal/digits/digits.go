// Package digits holds the UCI optical-recognition handwritten digits (8x8
// images, 1,797 of them, each a label 0 to 9), embedded in the binary, for
// the demo and the examples.
package digits

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
)

//go:embed digits.csv.gz
var data []byte

// Embedded returns the embedded data set: 64 pixels per image scaled to
// [0, 1], row by row, and one label per image.
func Embedded() (images []float32, labels []int64, err error) {
	return Load("digits.csv.gz (embedded)", bytes.NewReader(data))
}

// Load reads a gzipped CSV, named name in errors: 64 pixel values (0 to
// 16) and a label per line. Pixels are scaled to [0, 1].
func Load(name string, r io.Reader) ([]float32, []int64, error) {
	z, err := gzip.NewReader(r)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	cr := csv.NewReader(z)
	cr.FieldsPerRecord = 65
	var images []float32
	var labels []int64
	for line := 1; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		for _, s := range rec[:64] {
			v, err := strconv.ParseFloat(s, 32)
			if err != nil || v < 0 || v > 16 {
				return nil, nil, fmt.Errorf("%s:%d: bad pixel %q", name, line, s)
			}
			images = append(images, float32(v)/16)
		}
		l, err := strconv.ParseInt(rec[64], 10, 64)
		if err != nil || l < 0 || l > 9 {
			return nil, nil, fmt.Errorf("%s:%d: bad label %q", name, line, rec[64])
		}
		labels = append(labels, l)
	}
	if len(labels) == 0 {
		return nil, nil, fmt.Errorf("%s: no images", name)
	}
	return images, labels, nil
}

// Raw returns a copy of the embedded file's bytes (a gzipped CSV).
func Raw() []byte { return bytes.Clone(data) }
