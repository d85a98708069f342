#pragma once
// Arithmetic and logical expressions over named numbers (tuning parameters, problem features),
// evaluated by muparser. Conditions of tuning-problem files are written in Python's spelling
// (Kernel Tuner, KTT): besides muparser's C-like operators (&&, ||, ==, ?:, ^ as power) this
// accepts %, // (floor division), ** (power), and, or, not, True, False, ceil() and floor().
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace mu {
class Parser;
}

namespace ktune::filefamily {

class Expression {
 public:
  // Throws Error(why) when the text does not parse or uses a name outside `variables`.
  Expression(const std::string& text, const std::vector<std::string>& variables);
  ~Expression();
  Expression(Expression&&) noexcept;
  Expression& operator=(Expression&&) noexcept;

  const std::string& text() const { return text_; }
  // values in the order of the constructor's variables; thread-safe.
  double eval(const std::vector<double>& values) const;

 private:
  std::string text_;
  std::unique_ptr<mu::Parser> parser_;
  std::unique_ptr<std::vector<double>> slots_;  // muparser reads variables from these addresses
  std::unique_ptr<std::mutex> mutex_;
};

}  // namespace ktune::filefamily
