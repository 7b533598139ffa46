"""Test setup: import ``zot_ext`` from the source tree (``sdk-python/python``),
so that the tests run before the package is built or installed."""

import sys
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[1] / "python"
sys.path.insert(0, str(SOURCE))
