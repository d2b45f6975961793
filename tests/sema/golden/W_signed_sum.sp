// expect: 15:13: warning[signed-sum]: 'diff' adds differences with their sign, so changes of opposite sign cancel and the loop's test on 'diff' can end it before it converges
// expect: 30:13: warning[signed-sum]: 'moved' adds differences with their sign, so changes of opposite sign cancel and the loop's test on 'moved' can end it before it converges
// A loop that runs while a sum of changes exceeds a bound must add each change's size:
// StarPlat's PageRank programs add 'val - v.pageRank' with its sign, so rises and falls
// cancel and the loop ends after a round or two. The absolute difference (an 'if' that
// compares the two sides) is not warned about, nor a sum the loop's test does not bound.
function Rank(Graph g, float beta, propNode<float> rank, propNode<float> next) {
    g.attachNodeProperty(rank = 1.0, next = 0.0);
    float diff = 0;
    int rounds = 0;
    do {
        diff = 0;
        forall (v in g.nodes()) {
            float val = 0.5 * v.rank;
            diff += val - v.rank;
            v.next = val;
        }
        rank = next;
        rounds++;
    } while ((diff > beta) && (rounds < 100));
}

function Spread(Graph g, float eps, propNode<float> x) {
    g.attachNodeProperty(x = 1.0);
    float moved = 1;
    float total = 0;
    while (eps < moved) {
        moved = 0;
        forall (v in g.nodes()) {
            moved += v.x - 0.5;
            total += v.x - 1.0;
        }
    }
    float size = 1;
    while (size > eps) {
        size = 0;
        forall (v in g.nodes()) {
            float val = 0.5 * v.x;
            if (val > v.x) {
                size += val - v.x;
            } else {
                size += v.x - val;
            }
            v.x = val;
        }
    }
    forall (v in g.nodes()) {
        v.x = v.x + total;
    }
}
