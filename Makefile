# MindTorch for Go. `make demo` and `make test` work on a fresh machine.
GO ?= go
export CGO_ENABLED = 1
PKGS = ./...
# Packages whose values goroutines share; tested under the race detector.
RACE_PKGS = ./internal/goroutine/... ./pkg/autograd/... ./pkg/backends/... ./pkg/dispatch/... ./pkg/torch/... ./pkg/nn/... ./pkg/optim/... ./pkg/safetensors/... ./pkg/data/...

.PHONY: all setup test test-race test-sanitize demo bench lint golden generate test-npu docker-ascend clean

all: test

setup:
	@sh scripts/setup.sh

test: setup
	$(GO) test -count=1 $(PKGS)
	$(GO) test -count=1 -race -short $(RACE_PKGS)
	# The matrix products once more with gonum's BLAS, the fallback without OpenBLAS.
	MINDTORCH_OPENBLAS=none $(GO) test -count=1 -run 'TestOpsGolden/[a-z_]*/(mm|bmm|addmm|baddbmm|matmul|dot|mv|outer|linear|einsum|tensordot|addmv|addr|kron)/' ./pkg/torch
	# Every op once more with every allocation from the CPU cache and reused
	# memory poisoned: no kernel may expect new memory to hold zeros.
	MINDTORCH_CPU_CACHE_DEBUG=1 $(GO) test -count=1 ./pkg/backends/cpu ./pkg/torch
	@$(MAKE) --no-print-directory test-sanitize

# The CANN emulator's C rule checks (run above by internal/npuemu's
# TestEmulatorEnforcesCANNRules) once more, the emulator and the checks built
# under AddressSanitizer and UBSan; skipped, saying why, when the C compiler
# cannot build or run with them.
test-sanitize:
	MINDTORCH_SANITIZE=1 $(GO) test -count=1 -v -run 'TestEmulatorRulesUnderSanitizers|TestEmulatorNNRules' ./internal/npuemu

# make demo DEMO_FLAGS="-device npu -epochs 50" on an Ascend host.
demo: setup
	$(GO) run ./cmd/demo $(DEMO_FLAGS)

bench: setup
	sh scripts/bench.sh

lint:
	@test -z "$$(gofmt -l . | tee /dev/stderr)" || (echo "gofmt: files above need formatting" >&2; exit 1)
	$(GO) vet $(PKGS)

# Regenerate the files generated from the op table (internal/optable).
generate:
	$(GO) generate ./internal/optable

# Regenerate testdata/ with real PyTorch (Debian's python3-torch).
golden:
	MINDTORCH_GOLDEN=1 sh scripts/setup.sh
	for f in scripts/golden/*.py; do /usr/bin/python3 $$f || exit 1; done

# On an Ascend host with CANN installed: the NPU tests against the real device.
test-npu: setup
	MINDTORCH_NPU_REAL=1 $(GO) test -count=1 ./pkg/backends/npu/... ./cmd/demo/...

docker-ascend:
	docker build -f Dockerfile.ascend -t mindtorch-ascend .

# Not needed after C edits (the C files live in their cgo packages'
# directories, which the build cache sees): empties Go's caches.
clean:
	$(GO) clean -cache -testcache
