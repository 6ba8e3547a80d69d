package digits

import (
	"strings"
	"testing"
)

func TestEmbedded(t *testing.T) {
	images, labels, err := Embedded()
	if err != nil || len(labels) != 1797 || len(images) != 64*1797 {
		t.Fatalf("%d labels, %d pixels, %v", len(labels), len(images), err)
	}
	for _, v := range images {
		if v < 0 || v > 1 {
			t.Fatalf("pixel %v outside [0, 1]", v)
		}
	}
}

func TestLoadNamesItsInput(t *testing.T) {
	if _, _, err := Load("bad.csv.gz", strings.NewReader("not gzip")); err == nil || !strings.Contains(err.Error(), "bad.csv.gz") {
		t.Errorf("got %v", err)
	}
}
