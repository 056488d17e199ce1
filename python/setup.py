# SPDX-License-Identifier: Apache-2.0 OR MIT
"""Builds the extension from this repository's sources: the library's
sources (src/sources.txt, the list CMake reads) are compiled into it (no
libcuckoofilter needs to be installed), with libxxhash-dev's header (used
header-only)."""

import atexit
import os
import re
import shutil
import tempfile
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

here = Path(__file__).resolve().parent
root = here.parent
if not (root / "include" / "cuckoofilter.h").is_file():
    raise SystemExit("build the package from the cuckoofilter repository (python/ in it)")


class build_ext_with_library(build_ext):
    """Adds the library's sources at build time: setuptools accepts only
    paths inside the package's directory in setup()'s arguments, and these
    live one level up."""

    def finalize_options(self):
        super().finalize_options()
        if not self.parallel:  # two dozen files: compile two at a time
            self.parallel = 2

    def build_extensions(self):
        library, folders = library_sources()
        for ext in self.extensions:
            ext.sources += library
            ext.include_dirs += [str(root / "include")] + folders
            if os.environ.get("XXHASH_INCLUDE_DIR"):
                ext.include_dirs.append(os.environ["XXHASH_INCLUDE_DIR"])
        super().build_extensions()


def library_sources():
    """The library's sources and its internal include root, from the one list
    (src/sources.txt: one path under src/ a line, # comments)."""
    lines = (root / "src" / "sources.txt").read_text().splitlines()
    paths = [root / "src" / l.strip() for l in lines if l.strip() and not l.startswith("#")]
    # Internal headers are included by their layer's path from one root.
    return [str(p) for p in paths], [str(root / "src")]


def library_version():
    """The package's version is the library's (include/cuckoofilter.h)."""
    header = (root / "include" / "cuckoofilter.h").read_text()
    return re.search(r'#define CF_VERSION_STRING "([^"]+)"', header).group(1)


def scratch_options():
    """setuptools' scratch (build/, cuckoofilter.egg-info/) in a temporary
    directory removed when this process ends, not in the source tree: pip
    builds in place.  Options given on the command line still win."""
    scratch = tempfile.mkdtemp(prefix="cfpy-setup-")
    atexit.register(shutil.rmtree, scratch, ignore_errors=True)
    return {"build": {"build_base": os.path.join(scratch, "build")},
            "egg_info": {"egg_base": scratch}}


setup(
    version=library_version(),
    options=scratch_options(),
    cmdclass={"build_ext": build_ext_with_library},
    ext_modules=[
        Extension(
            "cuckoofilter._cuckoofilter",
            sources=sorted(str(p.relative_to(here)) for p in (here / "src").glob("*.c")),
            depends=["src/cfpy.h", "exports.map"],
            extra_compile_args=["-std=c11", "-fvisibility=hidden", "-Wall", "-Wextra"],
            extra_link_args=["-Wl,--version-script=" + str(here / "exports.map")],
            libraries=["m"],
            # The library's sources define the header's experimental tier too.
            define_macros=[("CF_EXPERIMENTAL_API", None)],
        )
    ],
)
