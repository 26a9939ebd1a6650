// errors.go: Graft's failures as Go errors (*Error, with the C status code and message) and
// the helpers that run each SWIG call and collect the failure it recorded.

package graft

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"

	raw "graft.dev/graft/internal/graft_swig"
)

// Code is a Graft status code (graft_status in the C API).
type Code int

// The status codes of the C API.
const (
	CodeOK            Code = 0
	CodeUnknown       Code = -1
	CodeInvalid       Code = -2
	CodeNotFound      Code = -3
	CodeExists        Code = -4
	CodeDType         Code = -5
	CodeShape         Code = -6
	CodeRange         Code = -7
	CodeNoMemory      Code = -8
	CodePrecondition  Code = -9
	CodeUnimplemented Code = -10
	CodeInternal      Code = -11
	CodeDataLoss      Code = -12
	CodeDevice        Code = -13
	CodeCancelled     Code = -14
	CodeDeadline      Code = -15
)

// String returns the code's C name, e.g. "GRAFT_EINVAL".
func (c Code) String() string { return raw.Graft_status_name(int(c)) }

// Error is a failed Graft call: the status code and the C library's one-line message.
type Error struct {
	Code     Code
	CodeName string // the code's C name, e.g. "GRAFT_EINVAL"
	Message  string
	cause    error // what made Graft stop (a context's error, a callback's), or nil: see Unwrap
}

func newError(code Code, message string) *Error {
	return &Error{Code: code, CodeName: code.String(), Message: message}
}

// Error returns "GRAFT_<CODE>: <message>".
func (e *Error) Error() string { return e.CodeName + ": " + e.Message }

// Is reports whether target is a *Error with the same code, so that
// errors.Is(err, graft.ErrNotFound) tests the kind of a failure.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// Unwrap returns the cause: the context's error of a run it stopped (context.DeadlineExceeded
// or context.Canceled), or the error a Go callback (traced closure, host function, gradient
// function) returned and failed the call with, so that errors.Is and errors.As find it; or nil.
func (e *Error) Unwrap() error { return e.cause }

// Sentinels for errors.Is, one per status code.
var (
	ErrUnknown       = newError(CodeUnknown, "unknown error")
	ErrInvalid       = newError(CodeInvalid, "invalid argument")
	ErrNotFound      = newError(CodeNotFound, "not found")
	ErrExists        = newError(CodeExists, "already exists")
	ErrDType         = newError(CodeDType, "wrong dtype")
	ErrShape         = newError(CodeShape, "incompatible shape")
	ErrRange         = newError(CodeRange, "out of range")
	ErrNoMemory      = newError(CodeNoMemory, "out of memory")
	ErrPrecondition  = newError(CodePrecondition, "failed precondition")
	ErrUnimplemented = newError(CodeUnimplemented, "unimplemented")
	ErrInternal      = newError(CodeInternal, "internal error")
	ErrDataLoss      = newError(CodeDataLoss, "data loss")
	ErrDevice        = newError(CodeDevice, "device error")
	ErrCancelled     = newError(CodeCancelled, "cancelled")
	ErrDeadline      = newError(CodeDeadline, "deadline exceeded")
)

// errClosed is the failure of a method called after Close.
func errClosed(what string) error {
	return newError(CodePrecondition, fmt.Sprintf("graft: use of a closed %s", what))
}

// takeError returns (and clears) the failure the last wrapper call on this OS thread recorded.
func takeError() error {
	code := raw.Graft_go_error_code()
	if code == 0 {
		return nil
	}
	e := newError(Code(code), raw.Graft_go_error_take())
	if cause := takeCallbackError(e.Message); cause != nil {
		e.cause = cause
		var ge *Error
		if errors.As(cause, &ge) { // the callback's own status code, not the one C++ reported
			e.Code, e.CodeName = ge.Code, ge.CodeName
		}
	}
	return e
}

// The errors Go callbacks returned, by the message they failed their C++ call with, until the
// *Error that call ends in takes its own as its cause. Bounded: a failure whose call never
// reaches Go again must not be kept for ever.
var callbackErrors struct {
	sync.Mutex
	m map[string]error
}

const maxCallbackErrors = 64

func rememberCallbackError(message string, err error) {
	callbackErrors.Lock()
	defer callbackErrors.Unlock()
	if callbackErrors.m == nil || len(callbackErrors.m) >= maxCallbackErrors {
		callbackErrors.m = make(map[string]error)
	}
	callbackErrors.m[message] = err
}

func takeCallbackError(message string) error {
	callbackErrors.Lock()
	defer callbackErrors.Unlock()
	for m, err := range callbackErrors.m {
		if strings.Contains(message, m) {
			delete(callbackErrors.m, m)
			return err
		}
	}
	return nil
}

// call runs f, which makes one SWIG call, on one OS thread and returns the failure it
// recorded (each wrapper clears a thread-local slot, then records a failure in it; see
// graft_go.i), so f must make no other SWIG call after the one that may fail.
func call(f func()) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	f()
	return takeError()
}

// get is call for a function with a result; on failure the (empty) result is freed.
func get[R any](f func() R) (R, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	r := f()
	if err := takeError(); err != nil {
		deleteRaw(r)
		var zero R
		return zero, err
	}
	return r, nil
}
