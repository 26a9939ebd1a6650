"""pip install for the graft Python package: builds Graft and its SWIG module with CMake (from the
repository root, two levels up) and puts the package, the extension and libgraft into the wheel.

    pip install ./bindings/python          # from the repository root
    GRAFT_USE_SYSTEM_LIB=1 pip install ./bindings/python

Needs what the C library needs (scripts/install-deps.sh) plus SWIG and the Python headers.
With GRAFT_USE_SYSTEM_LIB=1 it builds only the SWIG module, against the libgraft that
pkg-config finds (an installed Graft: `cmake --install`, PKG_CONFIG_PATH for a prefix of your
own); the wheel then holds no libgraft and loads the installed one.
"""
import os
import pathlib
import re
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent


class CMakeBuild(build_ext):
    """Builds the target graft_python with CMake and copies its package directory into the build."""

    def build_extension(self, ext):
        if os.environ.get("GRAFT_USE_SYSTEM_LIB", "0") not in ("", "0"):
            self.build_against_installed(ext)
            return
        build_dir = pathlib.Path(self.build_temp).resolve() / "cmake"
        build_dir.mkdir(parents=True, exist_ok=True)
        args = ["-DCMAKE_BUILD_TYPE=Release", "-DGRAFT_BUILD_TESTS=OFF", "-DGRAFT_BUILD_EXAMPLES=OFF",
                "-DGRAFT_BUILD_BENCH=OFF", "-DGRAFT_PACKAGING_TESTS=OFF", "-DGRAFT_PYTHON_WHEEL=ON",
                f"-DPython3_EXECUTABLE={sys.executable}"]
        if shutil.which("ninja"):
            args += ["-G", "Ninja"]
        subprocess.check_call(["cmake", "-S", str(ROOT), "-B", str(build_dir)] + args)
        jobs = str(os.cpu_count() or 1)
        subprocess.check_call(["cmake", "--build", str(build_dir), "--target", "graft_python", "-j", jobs])
        site = build_dir / "bindings" / "python" / "site" / "graft"
        out = pathlib.Path(self.get_ext_fullpath(ext.name)).resolve().parent
        out.mkdir(parents=True, exist_ok=True)
        for item in site.iterdir():
            if item.is_file():
                shutil.copy2(item, out / item.name)
        # libgraft beside the extension (its rpath is $ORIGIN in wheel builds), under its
        # SONAME (libgraft.so.N), the one name the extension asks the loader for.
        for lib in (build_dir / "c_api").glob("libgraft.so.*"):
            if lib.name.count(".") == 2:
                shutil.copy2(lib, out / lib.name, follow_symlinks=True)
        # Graft's MPI module (when MPI was found), which libgraft loads from its own directory.
        for lib in (build_dir / "c_api").glob("libgraft_mpi.so.*"):
            shutil.copy2(lib, out / lib.name, follow_symlinks=True)


    def build_against_installed(self, ext):
        """The SWIG module alone, compiled against the installed Graft's headers and libgraft."""
        def pkg_config(*args):
            return subprocess.check_output(["pkg-config", *args, "graft"], text=True).strip()

        try:
            version = pkg_config("--modversion")
        except (OSError, subprocess.CalledProcessError):
            raise SystemExit("GRAFT_USE_SYSTEM_LIB: pkg-config finds no graft; install Graft (cmake --install) and "
                             "set PKG_CONFIG_PATH to the directory of its graft.pc")
        if version != graft_version():
            raise SystemExit(f"GRAFT_USE_SYSTEM_LIB: the installed Graft is {version}, these bindings are "
                             f"{graft_version()}: install Graft from this checkout, or build without GRAFT_USE_SYSTEM_LIB")
        includedir, libdir = pkg_config("--variable=includedir"), pkg_config("--variable=libdir")
        print(f"graft: building the module against Graft {version} in {libdir}")
        swig_dir = pathlib.Path(self.build_temp).resolve() / "swig"
        swig_dir.mkdir(parents=True, exist_ok=True)
        wrapper = swig_dir / "graft_wrap.cxx"
        bindings = ROOT / "bindings"
        # The flags of bindings/python/CMakeLists.txt's graft_swig_generate call.
        subprocess.check_call(["swig", "-c++", "-python", "-builtin", "-threads", "-DSWIGWORDSIZE64",
                               "-module", "graft_swig", f"-I{bindings}", f"-I{includedir}", "-outdir", str(swig_dir),
                               "-o", str(wrapper), str(bindings / "graft.i")])
        ext.sources = [str(wrapper)]
        ext.include_dirs = [str(bindings), includedir]
        ext.library_dirs = [libdir]
        ext.runtime_library_dirs = [libdir]  # the installed libgraft, wherever its prefix is
        ext.libraries = ["graft"]
        ext.extra_compile_args = ["-std=c++20", "-w"]
        ext.language = "c++"
        out = pathlib.Path(self.get_ext_fullpath(ext.name)).resolve().parent
        out.mkdir(parents=True, exist_ok=True)
        shutil.copy2(swig_dir / "graft_swig.py", out / "graft_swig.py")
        super().build_extension(ext)


def graft_version():
    """GRAFT_VERSION_STRING of the headers beside the bindings: the package's version is the library's."""
    header = ROOT / "c_api" / "include" / "graft" / "version.h"
    if not header.exists():  # a copy of bindings/ alone (GRAFT_USE_SYSTEM_LIB): the installed headers'
        header = pathlib.Path(subprocess.check_output(["pkg-config", "--variable=includedir", "graft"], text=True)
                              .strip()) / "graft" / "version.h"
    match = re.search(r'#define GRAFT_VERSION_STRING "([^"]+)"', header.read_text())
    if not match:
        raise SystemExit(f"no GRAFT_VERSION_STRING in {header}")
    return match.group(1)


setup(version=graft_version(), ext_modules=[Extension("graft._graft_swig", sources=[])], cmdclass={"build_ext": CMakeBuild})
