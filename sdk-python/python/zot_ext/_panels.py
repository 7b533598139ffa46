"""The panel input handlers of :class:`~zot_ext.Extension` (a base class)."""

from __future__ import annotations

from . import _native
from ._registry import _Handler, _Panel

TYPE_CHECKING = False
if TYPE_CHECKING:
    import threading
    from typing import Any, Callable, Dict, Optional, TypeVar, Union, overload

    PanelF = TypeVar("PanelF", bound=Callable[..., Any])

__all__ = ["PanelRegistration"]


class PanelRegistration:
    """``on_panel_key``, ``on_panel_close``, ``on_panel_resize`` and
    ``forget_panel``: handlers per panel id, read by the session when panel
    input arrives."""

    _lock: threading.Lock
    _panels: Dict[str, _Panel]
    _last_panel_registration: int = 0

    def _running_engine(self) -> Optional[_native.Engine]:
        """The running session's engine (call with ``_lock`` held)."""
        raise NotImplementedError

    def _set_panel_handler(
        self, panel_id: str, field: str, handler: Optional[PanelF], thread: bool
    ) -> Union[PanelF, Callable[[PanelF], PanelF]]:
        """Sets one handler of ``panel_id`` (``field`` of ``_Panel``) under a
        fresh registration number, bound in the engine if it runs (under the
        lock, so that bindings reach it in order); as a decorator when
        ``handler`` is None."""

        def register(fn: PanelF) -> PanelF:
            with self._lock:
                self._last_panel_registration += 1
                number = self._last_panel_registration
                current = self._panels.get(panel_id, _Panel())
                self._panels[panel_id] = current.with_handler(
                    number, field, _Handler.of(fn, thread, max_args=1)
                )
                engine = self._running_engine()
                if engine is not None:
                    engine.bind_panel(panel_id, number)
            return fn

        return register if handler is None else register(handler)

    if TYPE_CHECKING:

        @overload
        def on_panel_key(self, panel_id: str, *, thread: bool = True) -> Callable[[PanelF], PanelF]: ...

        @overload
        def on_panel_key(self, panel_id: str, handler: PanelF, *, thread: bool = True) -> PanelF: ...

    def on_panel_key(
        self, panel_id: str, handler: Optional[PanelF] = None, *, thread: bool = True
    ) -> Union[PanelF, Callable[[PanelF], PanelF]]:
        """Routes ``panel_key`` frames for ``panel_id`` to ``handler(key)``
        (a ``PanelKey`` dict), in arrival order, one at a time, replacing an
        earlier key handler. Keys for panels without a handler are ignored
        (SDK-46)."""
        return self._set_panel_handler(panel_id, "on_key", handler, thread)

    if TYPE_CHECKING:

        @overload
        def on_panel_close(self, panel_id: str, *, thread: bool = True) -> Callable[[PanelF], PanelF]: ...

        @overload
        def on_panel_close(self, panel_id: str, handler: PanelF, *, thread: bool = True) -> PanelF: ...

    def on_panel_close(
        self, panel_id: str, handler: Optional[PanelF] = None, *, thread: bool = True
    ) -> Union[PanelF, Callable[[PanelF], PanelF]]:
        """Calls ``handler(panel_id)`` when the host closes ``panel_id``
        (Esc / Ctrl+C); the panel's handlers are forgotten afterwards."""
        return self._set_panel_handler(panel_id, "on_close", handler, thread)

    if TYPE_CHECKING:

        @overload
        def on_panel_resize(self, panel_id: str, *, thread: bool = True) -> Callable[[PanelF], PanelF]: ...

        @overload
        def on_panel_resize(self, panel_id: str, handler: PanelF, *, thread: bool = True) -> PanelF: ...

    def on_panel_resize(
        self, panel_id: str, handler: Optional[PanelF] = None, *, thread: bool = True
    ) -> Union[PanelF, Callable[[PanelF], PanelF]]:
        """Routes ``panel_resize`` frames for ``panel_id`` (no stored host
        sends them; OP-14)."""
        return self._set_panel_handler(panel_id, "on_resize", handler, thread)

    def forget_panel(self, panel_id: str) -> None:
        """Forgets every handler of ``panel_id``."""
        with self._lock:
            self._panels.pop(panel_id, None)
            engine = self._running_engine()
            if engine is not None:
                engine.unbind_panel(panel_id)
