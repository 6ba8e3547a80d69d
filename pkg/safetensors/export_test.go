package safetensors

// SetBeforeRename installs f to run between Save's write of the temporary
// file and its rename over the target, and returns a function that removes it.
func SetBeforeRename(f func(tmp string) error) (restore func()) {
	old := beforeRename
	beforeRename = f
	return func() { beforeRename = old }
}
