"""The compiled scoring kernel; everything else about the package is in pyproject.toml.

Optional: without a C compiler voxeval still installs, and ``voxeval score`` uses the numpy kernel (the same rows,
more slowly) and says so (docs/performance.md). ``-ffp-contract=off``: no fused multiply-add, so the C code rounds
exactly as the Python code it mirrors.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "voxeval._native",
            sources=["src/voxeval/_native.c"],
            extra_compile_args=["-O2", "-ffp-contract=off"],
            optional=True,
        )
    ]
)
