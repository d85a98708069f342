#pragma once
// The class a probability (or score) vector votes for: the first of the largest entries, as
// scikit-learn's argmax breaks ties; a NaN entry never wins.
#include <Eigen/Dense>

namespace ktune::ml {

inline int first_argmax(const Eigen::VectorXd& scores) {
  Eigen::Index best = 0;
  for (Eigen::Index c = 1; c < scores.size(); ++c) {
    if (scores[c] > scores[best]) best = c;
  }
  return static_cast<int>(best);
}

}  // namespace ktune::ml
