# frozen_string_literal: true

# Makes the Makefile of the extension graft_swig at `gem install graft`: SWIG's wrapper
# (graft_wrap.cxx, generated when the gem was built) compiled against the installed Graft's
# headers and libgraft, found by pkg-config (PKG_CONFIG_PATH for a prefix of your own). The
# extension records libgraft's directory as its run path, so it loads that library without
# LD_LIBRARY_PATH.
require "mkmf"

unless pkg_config("graft")
  abort "graft: pkg-config finds no graft. Install Graft (cmake --install build) and set " \
        "PKG_CONFIG_PATH to the directory of its graft.pc."
end
libdir = `pkg-config --variable=libdir graft`.strip
# C++20 like the bindings' headers; SWIG's generated code is not held to warnings.
$CXXFLAGS << " -std=c++20 -w"
$INCFLAGS << " -I$(srcdir)"
$LDFLAGS << " -Wl,-rpath,#{libdir}"
abort "graft: libgraft not found by the linker in #{libdir}" unless have_library("graft", "graft_version", "graft/graft.h")
create_makefile("graft_swig")
