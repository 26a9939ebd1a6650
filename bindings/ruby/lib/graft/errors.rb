# frozen_string_literal: true

# bindings/ruby/lib/graft/errors.rb: Graft::Error and its subclasses.
#
# The extension defines the classes (so that it raises them without this library): Graft::Error
# < StandardError, and one subclass per status code of graft/error.h, each with its CODE:
#
#   UnknownError (GRAFT_EUNKNOWN)      InvalidArgumentError (GRAFT_EINVAL)
#   NotFoundError (GRAFT_ENOTFOUND)    AlreadyExistsError (GRAFT_EEXISTS)
#   DTypeError (GRAFT_EDTYPE)          ShapeError (GRAFT_ESHAPE)
#   OutOfRangeError (GRAFT_ERANGE)     ResourceExhaustedError (GRAFT_ENOMEM)
#   FailedPreconditionError (GRAFT_EPRECONDITION)
#   UnimplementedError (GRAFT_EUNIMPLEMENTED)
#   InternalError (GRAFT_EINTERNAL)    DataLossError (GRAFT_EDATALOSS)
#   DeviceError (GRAFT_EDEVICE)        CancelledError (GRAFT_ECANCELLED)
#   DeadlineExceededError (GRAFT_EDEADLINE)
#
# A failed call raises the subclass of its code with the C message. When a Ruby callback (a
# traced block, a host function) raised, the Graft::Error of the call it failed has that
# exception as its cause.

module Graft
  class Error
    # The status code (a negative Integer, e.g. -2 for GRAFT_EINVAL).
    def code
      @code || self.class::CODE
    end

    # The status code's name, e.g. "GRAFT_EINVAL".
    def code_name
      Graft_swig.graft_status_name(code)
    end

    # The Graft::Error subclass raised for a status code.
    def self.for_code(code)
      Graft.constants.each do |name|
        cls = Graft.const_get(name)
        return cls if cls.is_a?(Class) && cls < Error && cls::CODE == code
      end
      Error
    end
  end
end
