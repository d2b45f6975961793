"""The C++ runtime's .sg reader (starc_graph_binary.hpp) against the Python one: the same CSR
as the text file gives, and the same located error for every kind of damage."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from starc.graphs import GraphFormatError, load_graph
from starc.graphs.binary import save_sg

# The driver (compiled once per module) and the dump helpers of the runtime tests; the
# damaged files of the Python reader's tests.
from test_runtime import GRAPHS, assert_same_graph, driver, needs_gxx, parse_dump, run  # noqa: F401
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "graphs"))
from test_graph_binary import DAMAGE, _damaged  # noqa: E402


@needs_gxx
@pytest.mark.parametrize("undirected", [False, True], ids=["directed", "undirected"])
@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_sg_gives_the_text_files_csr(driver, tmp_path, name, undirected):
    text = tmp_path / name
    text.write_text(GRAPHS[name], newline="")
    binary = tmp_path / "g.sg"
    save_sg(load_graph(str(text)), str(binary))
    flag = ["--undirected"] if undirected else []
    from_text = run(driver, "dump", text, *flag)
    from_binary = run(driver, "dump", binary, *flag)
    assert from_text.returncode == 0 and from_binary.returncode == 0, from_binary.stderr
    assert_same_graph(parse_dump(from_binary.stdout), parse_dump(from_text.stdout))
    # written symmetrised, the file says so: --undirected adds nothing more
    save_sg(load_graph(str(text), undirected=True), str(binary), undirected=True)
    again = run(driver, "dump", binary, *flag)
    assert_same_graph(parse_dump(again.stdout), parse_dump(run(driver, "dump", text,
                                                               "--undirected").stdout))


@needs_gxx
@pytest.mark.parametrize("kind", sorted(DAMAGE))
def test_damaged_sg_is_the_python_readers_error(driver, tmp_path, kind):
    path = tmp_path / "bad.sg"
    path.write_bytes(_damaged(tmp_path, kind))
    result = run(driver, "dump", path)
    assert result.returncode == 1 and result.stdout == ""
    message = result.stderr.strip()
    assert message.startswith(f"runtime_driver: error: {path}: {DAMAGE[kind]}"), message
    assert "\n" not in message
    with pytest.raises(GraphFormatError) as python_error:
        load_graph(str(path))
    assert str(python_error.value) == message[len("runtime_driver: error: "):]


@needs_gxx
def test_sg_bytes_under_another_extension_get_a_hint(driver, tmp_path):
    path = tmp_path / "g.el"
    path.write_bytes(_damaged(tmp_path, "none"))
    result = run(driver, "dump", path)
    assert result.returncode == 1
    assert f"{path}: this is a starc binary graph; name it with the .sg extension" in result.stderr
