"""Independent oracles for the dsl algorithms (networkx, or short textbook code)."""

from __future__ import annotations

import heapq

import networkx as nx
import numpy as np

INT_MAX = 2**31 - 1


def edges_of(graph):
    weights = graph.weights if graph.weights is not None else np.ones(graph.num_edges)
    return list(zip(graph.sources.tolist(), graph.targets.tolist(), weights.tolist()))


def digraph(graph) -> nx.DiGraph:
    g = nx.DiGraph()
    g.add_nodes_from(range(graph.num_nodes))
    g.add_edges_from((u, v) for u, v, _ in edges_of(graph))
    return g


def dijkstra(graph, src):
    dist = [INT_MAX] * graph.num_nodes
    adjacency = [[] for _ in range(graph.num_nodes)]
    for u, v, w in edges_of(graph):
        adjacency[u].append((v, int(w)))
    dist[src] = 0
    heap = [(0, src)]
    while heap:
        d, u = heapq.heappop(heap)
        if d > dist[u]:
            continue
        for v, w in adjacency[u]:
            if d + w < dist[v]:
                dist[v] = d + w
                heapq.heappush(heap, (d + w, v))
    return np.array(dist)


def widest(graph, src):
    """Max-min (bottleneck) Dijkstra: src gets INT_MAX, unreachable 0."""
    width = [0] * graph.num_nodes
    adjacency = [[] for _ in range(graph.num_nodes)]
    for u, v, w in edges_of(graph):
        adjacency[u].append((v, int(w)))
    width[src] = INT_MAX
    heap = [(-INT_MAX, src)]
    done = set()
    while heap:
        negative, u = heapq.heappop(heap)
        if u in done:
            continue
        done.add(u)
        for v, w in adjacency[u]:
            candidate = min(-negative, w)
            if candidate > width[v]:
                width[v] = candidate
                heapq.heappush(heap, (-candidate, v))
    return np.array(width)


def bfs_levels(graph, src):
    lengths = nx.single_source_shortest_path_length(digraph(graph), src)
    return np.array([lengths.get(v, -1) for v in range(graph.num_nodes)])


def bfs_relation_counts(graph, src, runs_b1=None, runs_b2=None):
    """Per vertex, the number of BFS-parent edges (w -> v, level(w) = level(v) - 1) seen by B1 and
    of BFS-child edges (v -> w, level(w) = level(v) + 1) seen by B2, from networkx's levels and
    the edge list (duplicate edges count twice, self-loops never). Only reached vertices run a
    body; ``runs_b1``/``runs_b2`` (vertex -> bool) model a BFS filter / iterateInReverse
    condition. The source has no parents."""
    counts = bfs_relation(graph, src, runs_b1, runs_b2)
    return counts["parents"], counts["children"]


def bfs_relation(graph, src, runs_b1=None, runs_b2=None):
    """``bfs_relation_counts`` as a dict, with the weight sums of those edges: ``parents``,
    ``children``, ``pweight`` (parent edges) and ``cweight`` (child edges)."""
    level = bfs_levels(graph, src)
    out = {name: np.zeros(graph.num_nodes, dtype=np.int64)
           for name in ("parents", "children", "pweight", "cweight")}
    for u, v, w in edges_of(graph):
        if level[u] < 0 or level[v] != level[u] + 1:
            continue
        if runs_b1 is None or runs_b1(v):
            out["parents"][v] += 1
            out["pweight"][v] += int(w)
        if runs_b2 is None or runs_b2(u):
            out["children"][u] += 1
            out["cweight"][u] += int(w)
    return out


def components(graph):
    comp = np.arange(graph.num_nodes)
    for members in nx.weakly_connected_components(digraph(graph)):
        comp[list(members)] = min(members)
    return comp


def betweenness(graph, sources, undirected):
    g = digraph(graph)
    if undirected:
        g = g.to_undirected()
    values = nx.betweenness_centrality_subset(g, sources, list(g.nodes), normalized=False)
    scale = 2.0 if undirected else 1.0
    return np.array([values[v] * scale for v in range(graph.num_nodes)])


def simple_undirected(graph) -> nx.Graph:
    g = nx.Graph()
    g.add_nodes_from(range(graph.num_nodes))
    g.add_edges_from((u, v) for u, v, _ in edges_of(graph) if u != v)
    return g


def triangles(graph):
    return sum(nx.triangles(simple_undirected(graph)).values()) // 3


def kcore(graph, k):
    core = nx.core_number(simple_undirected(graph))
    return np.array([core[v] >= k for v in range(graph.num_nodes)])


def pagerank(graph, beta, delta, max_iter):
    n = graph.num_nodes
    out_degree = np.bincount(graph.sources, minlength=n).astype(np.float64)
    rank = np.full(n, 1.0 / n)
    iterations = 0
    while True:
        contribution = np.zeros(n)
        np.add.at(contribution, graph.targets, rank[graph.sources] / out_degree[graph.sources])
        new = (1 - delta) / n + delta * contribution
        diff = np.abs(new - rank).sum()
        rank = new
        iterations += 1
        if not (diff > beta and iterations < max_iter):
            return rank
