#!/usr/bin/python3
"""scikit-learn reference for ktune's naive Bayes and logistic regression (test_naive_bayes.cpp,
test_logreg.cpp). Run with Debian's /usr/bin/python3 (python3-sklearn).

  sklearn_linear.py nb DIR       GaussianNB() (var_smoothing 1e-9)
  sklearn_linear.py logreg DIR   LogisticRegression(multi_class="multinomial", C=1.0,
                                 solver="lbfgs", tol=1e-10, max_iter=100000)

DIR holds X_train.txt, y_train.txt, X_test.txt (comma-separated, no header); the script writes
pred.txt, proba.txt and the fitted parameters (nb: theta.txt, var.txt; logreg: coef.txt,
intercept.txt) there.
"""
import os
import sys

import numpy as np


def load(d, name):
    return np.loadtxt(os.path.join(d, name), delimiter=",", ndmin=2)


def save(d, name, values):
    np.savetxt(os.path.join(d, name), np.atleast_2d(np.asarray(values)), fmt="%.17g",
               delimiter=",")


def main(mode, d):
    X, y, T = load(d, "X_train.txt"), load(d, "y_train.txt")[:, 0].astype(int), load(d, "X_test.txt")
    if mode == "nb":
        from sklearn.naive_bayes import GaussianNB

        model = GaussianNB().fit(X, y)
        save(d, "theta.txt", model.theta_)
        save(d, "var.txt", model.var_)
    else:
        from sklearn.linear_model import LogisticRegression

        model = LogisticRegression(multi_class="multinomial", C=1.0, solver="lbfgs", tol=1e-10,
                                   max_iter=100000).fit(X, y)
        save(d, "coef.txt", model.coef_)
        save(d, "intercept.txt", model.intercept_.reshape(1, -1))
    save(d, "pred.txt", model.predict(T).reshape(-1, 1))
    save(d, "proba.txt", model.predict_proba(T))


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("nb", "logreg"):
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
