module github.com/mindtorch/mindtorch

go 1.26.0

require github.com/google/go-cmp v0.7.0

require gonum.org/v1/gonum v0.17.0

require golang.org/x/sys v0.49.0

require github.com/petermattis/goid v0.0.0-20260820044319-269ab09b5261
