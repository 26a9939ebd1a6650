"""pip install for the graft Python package: builds Graft and its SWIG module with CMake (from the
repository root, two levels up) and puts the package, the extension and libgraft into the wheel.

    pip install ./bindings/python          # from the repository root

Needs what the C library needs (scripts/install-deps.sh) plus SWIG and the Python headers.
"""
import os
import pathlib
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


setup(ext_modules=[Extension("graft._graft_swig", sources=[])], cmdclass={"build_ext": CMakeBuild})
