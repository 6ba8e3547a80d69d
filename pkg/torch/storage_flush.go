package torch

import "github.com/mindtorch/mindtorch/pkg/backends/kernel"

// Flush writes the changes made through a storage mapped shared from a file
// (UntypedStorageFromFile with shared) to the file and waits until they are
// written (msync with MS_SYNC), so that they survive a crash of the machine.
// Release flushes too, without reporting an error; Close reports it. Other
// storage has no file behind it: Flush does nothing and returns nil.
// Flushing a released storage, a nil or a zero UntypedStorage{} is an error.
func (s *UntypedStorage) Flush() error {
	if err := storageErr("flush", s); err != nil {
		return err
	}
	if s.mem.Released() {
		return s.errorf("flush", ErrRuntime, "the storage (%s) was released", s.describe())
	}
	if sy, ok := s.mem.(kernel.Syncer); ok {
		return sy.Sync()
	}
	return nil
}
