#!/usr/bin/python3
"""scikit-learn reference for ktune's own models, driven by tests/ml (test_cart, test_knn,
test_selector). Run with Debian's /usr/bin/python3 (python3-sklearn).

  sklearn_models.py tree DIR --task classifier|regressor [--max-depth D] [--min-split S]
                    [--min-leaf L] [--max-leaf-nodes N]
  sklearn_models.py knn DIR --k K
  sklearn_models.py pipeline DIR

DIR holds comma-separated numeric matrices (no header) written by the C++ test; the script writes its
answers there (pred.txt, or pct.txt for the pipeline).
"""
import argparse
import os

import numpy as np
from sklearn.neighbors import KNeighborsClassifier
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor


def load(d, name):
    return np.loadtxt(os.path.join(d, name), delimiter=",", ndmin=2)


def save(d, name, values):
    np.savetxt(os.path.join(d, name), np.asarray(values), fmt="%.17g", delimiter=",")


def tree(args):
    X = load(args.dir, "X_train.txt")
    Y = load(args.dir, "y_train.txt")
    T = load(args.dir, "X_test.txt")
    kw = dict(max_depth=args.max_depth, min_samples_split=args.min_split,
              min_samples_leaf=args.min_leaf, max_leaf_nodes=args.max_leaf_nodes,
              random_state=0)
    if args.task == "classifier":
        model = DecisionTreeClassifier(**kw).fit(X, Y[:, 0].astype(int))
        save(args.dir, "pred.txt", model.predict(T).reshape(-1, 1))
    else:
        model = DecisionTreeRegressor(**kw).fit(X, Y if Y.shape[1] > 1 else Y[:, 0])
        save(args.dir, "pred.txt", model.predict(T).reshape(len(T), -1))
    save(args.dir, "n_leaves.txt", [[model.get_n_leaves()]])


def knn(args):
    X = load(args.dir, "X_train.txt")
    y = load(args.dir, "y_train.txt")[:, 0].astype(int)
    T = load(args.dir, "X_test.txt")
    scaler = StandardScaler().fit(X)
    model = KNeighborsClassifier(n_neighbors=args.k).fit(scaler.transform(X), y)
    save(args.dir, "pred.txt", model.predict(scaler.transform(T)).reshape(-1, 1))


def pipeline(args):
    """tree-B on the shipped configs with ktune's documented rules (see selector.hpp and
    evaluate.hpp): labels = argmax of scaled perf over the shipped configs (ties: higher raw
    perf, then lower index), rows without a valid shipped config unlabelled; a refused pick is
    served by the baseline (safe order: most valid on training, then geomean with 1e-3 for
    invalid); % of oracle = 100 * geomean(perf(served) / oracle), a ratio of 0 floored at 1e-3."""
    F = load(args.dir, "features.txt")
    P = load(args.dir, "perf.txt")
    V = load(args.dir, "valid.txt") > 0.5
    train = load(args.dir, "train.txt")[:, 0].astype(int)
    test = load(args.dir, "test.txt")[:, 0].astype(int)
    shipped = load(args.dir, "shipped.txt")[:, 0].astype(int)
    P = np.where(V, P, 0.0)
    oracle = P.max(axis=1)
    S = P[:, shipped]
    SV = V[:, shipped]

    def label(r):
        best = -1
        for k in range(len(shipped)):
            if not SV[r, k]:
                continue
            if best < 0 or S[r, k] > S[r, best]:
                best = k
        return best

    labels = np.array([label(r) for r in train])
    keep = labels >= 0
    model = DecisionTreeClassifier(max_depth=6, min_samples_split=4, min_samples_leaf=3,
                                   random_state=0)
    model.fit(F[train][keep], labels[keep])
    classes = model.classes_

    scaled = np.where(SV[train], S[train] / oracle[train][:, None], 1e-3)
    count = SV[train].sum(axis=0)
    logsum = np.log(np.maximum(scaled, 1e-300)).sum(axis=0)
    safe = sorted(range(len(shipped)), key=lambda k: (-count[k], -logsum[k], k))

    ratios = []
    for r in test:
        pick = int(classes[np.argmax(model.predict_proba(F[r:r + 1])[0])])
        served = pick
        if not SV[r, pick]:
            legal = [k for k in safe if SV[r, k]]
            served = legal[0] if legal else pick
        ratio = S[r, served] / oracle[r] if SV[r, served] and oracle[r] > 0 else 0.0
        ratios.append(max(ratio, 1e-3))
    save(args.dir, "pct.txt", [[100.0 * np.exp(np.mean(np.log(ratios)))]])


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("tree")
    t.add_argument("dir")
    t.add_argument("--task", choices=["classifier", "regressor"], required=True)
    t.add_argument("--max-depth", type=int, default=None)
    t.add_argument("--min-split", type=int, default=2)
    t.add_argument("--min-leaf", type=int, default=1)
    t.add_argument("--max-leaf-nodes", type=int, default=None)
    k = sub.add_parser("knn")
    k.add_argument("dir")
    k.add_argument("--k", type=int, required=True)
    pl = sub.add_parser("pipeline")
    pl.add_argument("dir")
    args = p.parse_args()
    {"tree": tree, "knn": knn, "pipeline": pipeline}[args.cmd](args)


if __name__ == "__main__":
    main()
