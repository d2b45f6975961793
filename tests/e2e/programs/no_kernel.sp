// A program without a kernel: only host code (issue 32: MPI's build rejected its unused
// graph alias).
function CountNothing(Graph g) {
    int c = 0;
    long s = 3;
    while (c < 5) { c = c + 1; s = s * 2 + c; }
    return s;
}
