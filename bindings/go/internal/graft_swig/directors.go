// directors.go: added to the SWIG-generated package graft_swig (copied next to the generated
// graft_swig.go) for the leak tests: live directors (Go closures reachable from C++) and the
// C heap in use.

package graft_swig

// #include <malloc.h>
import "C"

// LiveDirectors returns the number of directors SWIG tracks.
func LiveDirectors() int {
	swigDirectorTrack.Lock()
	defer swigDirectorTrack.Unlock()
	return len(swigDirectorTrack.m)
}

// MallocInUse returns the bytes the C allocator has handed out and not taken back.
func MallocInUse() int64 {
	info := C.mallinfo2()
	return int64(info.uordblks) + int64(info.hblkhd)
}
