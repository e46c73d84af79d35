"""voxeval's compiled scoring code (``voxeval._native``); everything else about the package is in pyproject.toml.

Optional: without a C compiler voxeval still installs, and ``voxeval score`` does the same work in Python (the same
rows, more slowly) and says so (docs/metrics.md). ``-ffp-contract=off``: no fused multiply-add, so the C code rounds
exactly as the Python code it mirrors.
"""

import hashlib
from pathlib import Path

from setuptools import Extension, setup

SOURCE = "src/voxeval/_native.c"
# The module carries its source's hash; voxeval.native refuses a build of another version of the source.
SOURCE_SHA256 = hashlib.sha256((Path(__file__).parent / SOURCE).read_bytes()).hexdigest()

setup(
    ext_modules=[
        Extension(
            "voxeval._native",
            sources=[SOURCE],
            define_macros=[("NATIVE_SOURCE_SHA256", f'"{SOURCE_SHA256}"')],
            extra_compile_args=["-O2", "-ffp-contract=off"],
            optional=True,
        )
    ]
)
