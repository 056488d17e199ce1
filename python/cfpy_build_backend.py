# SPDX-License-Identifier: Apache-2.0 OR MIT
"""The package's PEP 517 build backend: setuptools', plus a wheel writer of
its own for interpreters that cannot make wheels.

`pip install --no-build-isolation ./python` asks the backend for a wheel.
setuptools makes one with its bdist_wheel command, which comes from the
`wheel` package before setuptools 70.1 (Debian's python3-wheel; a venv
made by another interpreter, pyenv's for one, has neither).  Without it
this module builds the package with setuptools' `build` command (build_py
and build_ext) and zips the result into a wheel itself: a wheel is a zip
of the installed files plus METADATA, WHEEL and RECORD (PEP 427), nothing
that needs a download.  With it, every hook is setuptools' own.
"""

import base64
import csv
import hashlib
import io
import os
import re
import subprocess
import sys
import sysconfig
import tempfile
import zipfile
from pathlib import Path

try:
    from setuptools import build_meta as _setuptools
except ImportError as e:  # pip would say only "No module named 'setuptools'"
    raise ImportError(
        "building cuckoofilter needs setuptools >= 61 in the environment pip runs in: "
        "`pip install --no-build-isolation` uses what is installed (Debian: python3-setuptools; "
        "a venv made with --system-site-packages sees the interpreter's)") from e

HERE = Path(__file__).resolve().parent

build_sdist = _setuptools.build_sdist
get_requires_for_build_sdist = _setuptools.get_requires_for_build_sdist


def _setuptools_makes_wheels():
    """True when setuptools has a bdist_wheel command here (its own, from
    70.1, or the wheel package's)."""
    try:
        import setuptools.command.bdist_wheel  # noqa: F401
        return True
    except ImportError:
        pass
    try:
        import wheel.bdist_wheel  # noqa: F401
        return True
    except ImportError:
        return False


def get_requires_for_build_wheel(config_settings=None):
    if _setuptools_makes_wheels():
        return _setuptools.get_requires_for_build_wheel(config_settings)
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    if _setuptools_makes_wheels():
        return _setuptools.prepare_metadata_for_build_wheel(metadata_directory, config_settings)
    name = _dist_info_name()
    target = Path(metadata_directory) / name
    target.mkdir(parents=True, exist_ok=True)
    (target / "METADATA").write_text(_metadata())
    (target / "WHEEL").write_text(_wheel_file())
    return name


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    if _setuptools_makes_wheels():
        return _setuptools.build_wheel(wheel_directory, config_settings, metadata_directory)
    with tempfile.TemporaryDirectory(prefix="cfpy-build-") as tmp:
        lib = Path(tmp) / "lib"
        # setup.py's own command line, in a child: setuptools' commands are
        # made to run once per process.
        subprocess.run([sys.executable, "setup.py", "-q", "build", "--build-base",
                        str(Path(tmp) / "build"), "--build-lib", str(lib)],
                       cwd=HERE, check=True, stdout=sys.stderr)
        name = f"cuckoofilter-{_version()}-{_tag()}.whl"
        _zip_wheel(lib, Path(wheel_directory) / name)
    return name


# ------------------------------------------------------------------ details

def _version():
    header = (HERE.parent / "include" / "cuckoofilter.h").read_text()
    return re.search(r'#define CF_VERSION_STRING "([^"]+)"', header).group(1)


def _project():
    """The [project] table's simple "key = value" lines (no toml reader
    before Python 3.11)."""
    fields = {}
    section = None
    for line in (HERE / "pyproject.toml").read_text().splitlines():
        line = line.split(" #")[0].strip()
        if line.startswith("["):
            section = line
        elif section == "[project]" and "=" in line:
            key, value = (s.strip() for s in line.split("=", 1))
            fields[key] = value
    return fields


def _metadata():
    p = _project()
    lines = ["Metadata-Version: 2.1", "Name: cuckoofilter", f"Version: {_version()}",
             f"Summary: {p['description'].strip(chr(34))}",
             f"Requires-Python: {p['requires-python'].strip(chr(34))}"]
    lines += [f"Classifier: {c}" for c in re.findall(r'"([^"]+)"', p.get("classifiers", ""))]
    return "\n".join(lines) + "\n"


def _tag():
    """cpXY-cpXY[t]-platform: the extension is built for this interpreter."""
    py = f"cp{sys.version_info.major}{sys.version_info.minor}"
    abi = py + ("t" if sysconfig.get_config_var("Py_GIL_DISABLED") else "")
    plat = re.sub(r"[-.]", "_", sysconfig.get_platform())
    return f"{py}-{abi}-{plat}"


def _wheel_file():
    return ("Wheel-Version: 1.0\nGenerator: cfpy_build_backend\nRoot-Is-Purelib: false\n"
            f"Tag: {_tag()}\n")


def _dist_info_name():
    return f"cuckoofilter-{_version()}.dist-info"


def _zip_wheel(lib, path):
    dist_info = _dist_info_name()
    files = sorted(p for p in lib.rglob("*") if p.is_file())
    entries = [(p.relative_to(lib).as_posix(), p.read_bytes()) for p in files]
    entries += [(f"{dist_info}/METADATA", _metadata().encode()),
                (f"{dist_info}/WHEEL", _wheel_file().encode())]
    record = io.StringIO()
    writer = csv.writer(record, lineterminator="\n")
    for name, data in entries:
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        writer.writerow([name, f"sha256={digest}", len(data)])
    writer.writerow([f"{dist_info}/RECORD", "", ""])
    entries.append((f"{dist_info}/RECORD", record.getvalue().encode()))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in entries:
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = (0o755 if name.endswith(".so") else 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    os.chmod(path, 0o644)
