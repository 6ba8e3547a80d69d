package kernel

// Syncer is optional for Memory: memory backed by a file (a shared file
// mapping) implements it to write its changes through to the file.
type Syncer interface {
	// Sync blocks until the changes made through the memory are written to
	// the file (msync with MS_SYNC); memory without a file returns nil, and
	// released memory an error.
	Sync() error
}
