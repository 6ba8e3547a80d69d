package npu

import "testing"

func TestAllocConf(t *testing.T) {
	cases := []struct {
		conf      string
		gc        float64
		maxCached int64
	}{
		{"", 0, -1},
		{"garbage_collection_threshold:0.6,max_split_size_mb:128", 0.6, -1},
		{"max_cached_mb:2", 0, 2 << 20},
		{"garbage_collection_threshold:1.5,unknown:3,max_split_size_mb:x", 0, -1}, // all ignored
	}
	for _, c := range cases {
		gc, mc := allocConf(c.conf)
		if gc != c.gc || mc != c.maxCached {
			t.Errorf("%q: gc %v, max cached %v", c.conf, gc, mc)
		}
	}
}
