"""Backend-neutral analyses: kernel outlining, transfers, reductions, fixedPoint and BFS lowering."""
