package graft

import raw "graft.dev/graft/internal/graft_swig"

// CachedMemoryBytes returns the bytes of freed tensor buffers that Graft keeps for reuse
// (buffers of 64 KiB and more, up to 64 MiB in all, process-wide).
func CachedMemoryBytes() uint64 { return uint64(raw.Graft_memory_cached_bytes()) }

// ReleaseCachedMemory frees the tensor buffers kept for reuse and returns how many bytes that
// gave back (as debug.FreeOSMemory does for Go's heap).
func ReleaseCachedMemory() uint64 { return uint64(raw.Graft_memory_release_cached()) }
