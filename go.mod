module github.com/mindtorch/mindtorch

go 1.24

require github.com/google/go-cmp v0.7.0
