#!/usr/bin/python3
"""Reference results from scikit-learn for the C++ parity tests.

usage: sklearn_parity.py MODE DIR
  kmeans: DIR/X.csv, DIR/init.csv -> DIR/centers.csv, DIR/labels.csv, DIR/inertia.csv
          (KMeans(init=init, n_init=1, algorithm='lloyd', max_iter=300, tol=1e-4))
  pca:    DIR/X.csv -> DIR/ratio.csv, DIR/components.csv, DIR/transformed.csv
          (PCA(svd_solver='full'))
Matrices are headerless CSV written with full precision.
"""
import sys

import numpy as np


def load(path):
    return np.atleast_2d(np.loadtxt(path, delimiter=",", ndmin=2))


def save(path, array):
    np.savetxt(path, np.atleast_2d(array), delimiter=",", fmt="%.17g")


def kmeans(d):
    from sklearn.cluster import KMeans

    X, init = load(f"{d}/X.csv"), load(f"{d}/init.csv")
    km = KMeans(n_clusters=init.shape[0], init=init, n_init=1, algorithm="lloyd",
                max_iter=300, tol=1e-4).fit(X)
    save(f"{d}/centers.csv", km.cluster_centers_)
    save(f"{d}/labels.csv", km.labels_.reshape(1, -1))
    save(f"{d}/inertia.csv", np.array([[km.inertia_]]))


def pca(d):
    from sklearn.decomposition import PCA

    X = load(f"{d}/X.csv")
    p = PCA(svd_solver="full").fit(X)
    save(f"{d}/ratio.csv", p.explained_variance_ratio_.reshape(1, -1))
    save(f"{d}/components.csv", p.components_)
    save(f"{d}/transformed.csv", p.transform(X))


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("kmeans", "pca"):
        sys.exit(__doc__)
    {"kmeans": kmeans, "pca": pca}[sys.argv[1]](sys.argv[2])
