package torch_test

import (
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// TestMain runs the tests, or, in a child process that a storage test
// started (MINDTORCH_STORAGE_CHILD set), that child's part.
func TestMain(m *testing.M) {
	if role := os.Getenv("MINDTORCH_STORAGE_CHILD"); role != "" {
		os.Exit(storageChild(role, os.Getenv("MINDTORCH_STORAGE_ARG")))
	}
	os.Exit(m.Run())
}

// storageChild is the other process of the cross-process storage tests.
func storageChild(role, arg string) int {
	switch role {
	case "permission":
		_, err := torch.UntypedStorageFromFile(arg, true, 0)
		fmt.Println("child:", err)
	case "writer": // fd 3 is the shared memory; arg its size
		n, _ := strconv.Atoi(arg)
		u, err := torch.OpenSharedStorage(3, n)
		if err != nil {
			fmt.Println("child:", err)
			return 2
		}
		x := torch.FromStorage(torch.NewTypedStorage(u, torch.Float32), 0, []int{n / 4}, nil)
		if err := x.MulScalar_(10).AddScalar_(1).Err(); err != nil {
			fmt.Println("child:", err)
			return 2
		}
		u.Release()
	default:
		fmt.Println("child: unknown role", role)
		return 2
	}
	return 0
}
