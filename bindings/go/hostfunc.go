// hostfunc.go: host functions (tf.py_function): Go closures run by the host-function op.
// The closure reaches C++ through a HostFunction director that Graft owns once registered:
// it is deleted when the token is unregistered and no run uses it any more.

package graft

import (
	"fmt"
	"sync"

	raw "graft.dev/graft/internal/graft_swig"
)

// HostFunc computes a host-function op's outputs from its inputs. It may run on any
// goroutine, several at once; a returned error fails the op's run with its message.
type HostFunc func(inputs []*Tensor) ([]*Tensor, error)

// hostAdapter is the Go side of a HostFunction director.
type hostAdapter struct {
	fn HostFunc
}

// Call is called by C++ for each run of the op; it returns "" or the failure's message.
func (a *hostAdapter) Call(inputs raw.TensorList, outputs raw.TensorList) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprintf("graft: host function panicked: %v", r)
		}
	}()
	in := make([]*Tensor, inputs.Size())
	for i := range in {
		t, err := get(func() raw.Tensor { return inputs.Get(i) })
		if err != nil {
			return errorMessage(err, "")
		}
		in[i] = newTensor(t)
	}
	out, err := a.fn(in)
	if err != nil {
		return errorMessage(err, "graft: host function failed")
	}
	for i, t := range out {
		if t == nil {
			return fmt.Sprintf("graft: host function returned a nil tensor (output %d)", i)
		}
		r, err := t.h.acquire()
		if err != nil {
			return err.Error()
		}
		outputs.Append(r)
		t.h.release()
	}
	return ""
}

// HostFunction is a Go closure registered (process-wide) under a token, which the
// host-function op calls (Context.CallHostFunction). It stays registered until Close.
type HostFunction struct {
	token string
	once  sync.Once
	err   error
}

// RegisterHostFunction registers fn under token (an error wrapping ErrExists when the token is taken).
func RegisterHostFunction(token string, fn HostFunc) (*HostFunction, error) {
	if fn == nil {
		return nil, newError(CodeInvalid, "graft: RegisterHostFunction needs a closure")
	}
	d := raw.NewDirectorHostFunction(&hostAdapter{fn: fn})
	// Graft owns d from here on, also when registering fails (it deletes it at once then).
	if err := call(func() { raw.HostFunctionRegister_owned(token, d) }); err != nil {
		return nil, err
	}
	return &HostFunction{token: token}, nil
}

// Token is the token the function is registered under.
func (h *HostFunction) Token() string { return h.token }

// Close unregisters the function; runs in progress finish first with the closure.
func (h *HostFunction) Close() error {
	h.once.Do(func() {
		h.err = call(func() { raw.HostFunctionUnregister_function(h.token) })
	})
	return h.err
}

// CallHostFunction runs (or records, while tracing) the host-function op calling the
// closure registered under token with inputs; its outputs have dtypes outTypes.
func (c *Context) CallHostFunction(token string, inputs []*Value, outTypes ...DType) ([]*Value, error) {
	var p pins
	defer p.done()
	rc, err := use(&p, &c.h)
	if err != nil {
		return nil, err
	}
	in, err := newValueVector(&p, inputs)
	if err != nil {
		return nil, err
	}
	tout := make([]int32, len(outTypes))
	for i, d := range outTypes {
		tout[i] = int32(d)
	}
	out, err := get(func() raw.ValueVector { return rc.Host_function_call(token, in, tout) })
	if err != nil {
		return nil, err
	}
	return c.valuesFromRaw(out), nil
}
