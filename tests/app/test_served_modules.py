"""The components' browser code served once per browser (dashboard/serve/modules.py).

Pure parts here; the route against a real server (an immutable, gzipped module; a bad name a 404 that
never repeats it) and the bytes of a Step in Chromium are in tests/browser/test_player_in_chromium.py.
"""
from __future__ import annotations

import asyncio
import gzip

import pytest
from starlette.requests import Request

from dashboard.serve import modules


@pytest.fixture
def serving(monkeypatch):
    monkeypatch.setattr(modules, "_served", True)
    monkeypatch.setattr(modules, "_modules", {})
    return modules


def _get(path: str, headers: dict | None = None):
    name = path.rsplit("/", 1)[-1]
    scope = {"type": "http", "method": "GET", "path": path, "path_params": {"name": name},
             "headers": [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]}
    return asyncio.run(modules.module_route(Request(scope)))


def test_without_the_apps_routes_a_component_keeps_its_whole_text(monkeypatch):
    monkeypatch.setattr(modules, "_served", False)
    text = "export default function mount(c) { return null; }\n"
    assert modules.component_js("player", text) == text


def test_served_a_component_gets_a_stub_naming_its_module_by_its_hash(serving):
    a = "export default function mount(c) { return 1; }\n" * 2000      # ~100 KB, like the player
    b = a + "// changed\n"
    stub_a, stub_b = serving.component_js("player", a), serving.component_js("player", b)
    assert len(stub_a) < 2000 < len(a)
    name_a, name_b = serving.module_name("player", a), serving.module_name("player", b)
    assert name_a != name_b and name_a.startswith("player.") and name_a.endswith(".js")
    assert f'"nbem-js/{name_a}"' in stub_a and f'"nbem-js/{name_b}"' in stub_b
    assert "export default function mount" in stub_a and "import(" in stub_a


def test_the_route_serves_the_text_immutable_and_gzipped(serving):
    text = "export default function mount(c) { return 'é'; }\n"
    serving.component_js("lean_chart", text)
    name = serving.module_name("lean_chart", text)
    plain = _get(f"/nbem-js/{name}")
    assert plain.status_code == 200 and plain.body.decode("utf-8") == text
    assert plain.headers["content-type"].startswith("text/javascript")
    assert "immutable" in plain.headers["cache-control"]
    zipped = _get(f"/nbem-js/{name}", {"Accept-Encoding": "gzip, br"})
    assert zipped.headers["content-encoding"] == "gzip" and gzip.decompress(zipped.body).decode("utf-8") == text
    again = _get(f"/nbem-js/{name}", {"If-None-Match": plain.headers["etag"]})
    assert again.status_code == 304 and not again.body


@pytest.mark.parametrize("name", ["player.0123456789abcdef.js", "../../etc/passwd", "<script>x</script>.js", ""])
def test_an_unknown_or_bad_name_is_a_404_that_does_not_repeat_it(serving, name):
    got = _get(f"/nbem-js/{name}")
    assert got.status_code == 404
    assert got.body == b"There is no such file." and "no-store" in got.headers["cache-control"]
