module github.com/mindtorch/mindtorch

go 1.24

require (
	github.com/google/go-cmp v0.7.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	gonum.org/v1/gonum v0.17.0 // indirect
)
