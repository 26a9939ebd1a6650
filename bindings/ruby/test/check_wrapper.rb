# frozen_string_literal: true

# bindings/ruby/test/check_wrapper.rb: checks the SWIG wrapper (ctest ruby.wrapper): every
# wrapper function whose call may record a Graft exception (%exception in graft_ruby.i) must
# raise it before returning (the "ret" typemaps), or a failure would pass silently.
#   ruby test/check_wrapper.rb <build>/bindings/ruby/swig/graft_wrap.cxx

source = File.read(ARGV.fetch(0))
functions = source.split(/^SWIGINTERN VALUE\n/).drop(1)
recording = functions.select { |f| f.include?("graft_ruby_set_pending(graft_ruby_error_class") }
missing = recording.reject { |f| f.include?("graft_ruby_raise_pending();") }.map { |f| f[/\A\w+/] }
abort "wrappers that never raise a recorded error: #{missing.join(', ')}" unless missing.empty?
abort "no wrapper records errors: is graft_ruby.i's %exception in use?" if recording.size < 100
puts "#{recording.size} wrappers raise recorded errors"
