"""The MPI reader of .sg files (starc_mpi_read.hpp): each rank's slice of the edges makes the
same distributed graph as the text file, and a damaged file gives the sequential message once."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from starc.graphs import load_graph
from starc.graphs.binary import save_sg

from pairwise import all_pairs

# The MPI runtime tests' driver (one build, shared with them through the build cache) and helpers, and the damaged
# files of the Python reader's tests.
from test_mpi_runtime import GRAPHS, check_distribution, distribute, driver, mpirun  # noqa: F401
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "graphs"))
from test_graph_binary import DAMAGE, _damaged  # noqa: E402

pytestmark = pytest.mark.mpi


#: graphs x forms x 1-3 ranks pairwise, not the full product (CI time: each case is an
#: mpirun): every graph in every form and with every rank count, every form with every count.
SG_CASES = all_pairs(["random.el", "symmetric.mtx", "loops_and_duplicates.el",
                      "weighted_comments.el", "fewer_vertices_than_ranks.el", "empty.el"],
                     ["directed", "undirected", "written-undirected"], [1, 2, 3])


@pytest.mark.parametrize("name, form, ranks", SG_CASES,
                         ids=[f"{n}-{f}-{r}" for n, f, r in SG_CASES])
def test_sg_distribution_reassembles_the_text_graph(driver, tmp_path, name, form, ranks):
    text = tmp_path / name
    text.write_text(GRAPHS[name], newline="")
    binary = tmp_path / "g.sg"
    written_undirected = form == "written-undirected"
    save_sg(load_graph(str(text), undirected=written_undirected), str(binary),
            undirected=written_undirected)
    undirected = form != "directed"
    dumps = distribute(driver, tmp_path, binary, ranks, undirected, reverse=True,
                       ghost_rows=True)
    check_distribution(dumps, load_graph(str(text), undirected=undirected), reverse=True,
                       ghost_rows=True)


#: each kind of damage with 1 or 3 ranks rather than both (CI time: each case is an mpirun):
#: the header's damage with 1 rank, the damage found in the sizes and the body (the arrays
#: each rank reads its slice of, the checksum over them) with 3.
ONE_RANK = ("magic", "short-header", "version", "flags", "reserved", "huge-header",
            "vertex-count-bytes")
DAMAGED_CASES = [(kind, 1 if kind in ONE_RANK else 3) for kind in sorted(DAMAGE)]


@pytest.mark.parametrize("kind, ranks", DAMAGED_CASES, ids=[f"{k}-{r}" for k, r in DAMAGED_CASES])
def test_damaged_sg_gives_the_sequential_message_once(driver, tmp_path, kind, ranks):
    path = tmp_path / "bad.sg"
    path.write_bytes(_damaged(tmp_path, kind))
    sequential = subprocess.run([str(driver), "read", str(path)], capture_output=True,
                                text=True, timeout=60)
    assert sequential.returncode == 1 and sequential.stderr.count("\n") == 1, sequential.stderr
    assert f"{path}: {DAMAGE[kind]}" in sequential.stderr
    result = mpirun(driver, ranks, "dump", path, "--out", tmp_path / "dump")
    assert result.returncode == 1, result.stderr
    assert result.stderr == sequential.stderr
    assert result.stdout == ""
