"""Exceptions raised by gemmgen.

Every error is a :class:`gemmgen.Error`. Spec problems raise
:class:`SpecError`, whose ``diagnostics`` list holds one
:class:`Diagnostic` (file, line, column, severity, message) per problem;
``str(e)`` is the text the CLI prints (``file:line:col: error: ...`` with the
source line and a caret).
"""
from __future__ import annotations

from typing import List, NamedTuple


class Diagnostic(NamedTuple):
    """One located problem in a spec (line and column are 1-based; 0 when
    the problem has no location, e.g. a missing file)."""

    file: str
    line: int
    column: int
    severity: str  # "error", "warning" or "note"
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}:{self.column}" if self.line else self.file
        return f"{where}: {self.severity}: {self.message}"


class Error(RuntimeError):
    """Base class of every gemmgen error."""


class SpecError(Error, ValueError):
    """The spec has errors; ``diagnostics`` lists them, located."""

    def __init__(self, message: str, diagnostics: List[Diagnostic] = ()):  # type: ignore[assignment]
        super().__init__(message)
        self.diagnostics: List[Diagnostic] = list(diagnostics)

    def __reduce__(self):
        return (type(self), (str(self), self.diagnostics))


class ProtocolError(SpecError):
    """The spec passes the static checks but its barrier protocol fails in
    the CPU simulation (deadlock, race or wrong result); the message is the
    simulator's report."""


class CompileError(Error):
    """NVRTC rejected the generated code (the message holds its log)."""


class NoDeviceError(Error):
    """No CUDA driver or GPU: compiling works, launching does not."""


class UnsupportedError(Error):
    """The kernel cannot run on this GPU (e.g. an sm_100a kernel on a Hopper
    GPU) or the runtime cannot launch it."""


class ArgumentError(Error, ValueError):
    """An argument the kernel cannot take: device, shape, layout, alignment."""


class DTypeError(ArgumentError, TypeError):
    """An array's element type is not the kernel's."""


class CudaError(Error):
    """A CUDA driver call failed, or the launch watchdog fired."""


__all__ = [
    "Diagnostic", "Error", "SpecError", "ProtocolError", "CompileError", "NoDeviceError",
    "UnsupportedError", "ArgumentError", "DTypeError", "CudaError",
]
