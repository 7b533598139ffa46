"""The wire types of the zot extension protocol, version 1: every frame of
both directions, the lifecycle events and the interception requests, as
``TypedDict``\\ s (generated from the Rust protocol crate into
``zot_ext._protocol``; keys keep their wire spelling)."""

from ._protocol import *  # noqa: F403
from ._protocol import __all__ as __all__
