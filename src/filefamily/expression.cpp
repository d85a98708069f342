// muparser with Python's operator spellings added (expression.hpp).
#include "src/filefamily/expression.hpp"

#include <fmt/format.h>
#include <muParser.h>

#include <algorithm>

#include "ktune/error.hpp"
#include "src/filefamily/python_spellings.hpp"

namespace ktune::filefamily {

Expression::Expression(const std::string& text, const std::vector<std::string>& variables)
    : text_(text),
      parser_(std::make_unique<mu::Parser>()),
      slots_(std::make_unique<std::vector<double>>(variables.size(), 1.0)),
      mutex_(std::make_unique<std::mutex>()) {
  try {
    ktune_python_spellings::add_python_spellings(*parser_);
    for (size_t i = 0; i < variables.size(); ++i) parser_->DefineVar(variables[i], &(*slots_)[i]);
    parser_->SetExpr(text);
    parser_->Eval();  // parses now, so that a bad expression fails when the file is read
  } catch (const mu::Parser::exception_type& e) {
    throw Error(fmt::format("'{}': {}", text, e.GetMsg()));
  }
}

Expression::~Expression() = default;
Expression::Expression(Expression&&) noexcept = default;
Expression& Expression::operator=(Expression&&) noexcept = default;

double Expression::eval(const std::vector<double>& values) const {
  std::lock_guard lock(*mutex_);
  if (values.size() != slots_->size())
    throw Error(
        fmt::format("'{}': {} values for {} variables", text_, values.size(), slots_->size()));
  std::copy(values.begin(), values.end(), slots_->begin());  // the addresses muparser holds
  try {
    return parser_->Eval();
  } catch (const mu::Parser::exception_type& e) {
    throw Error(fmt::format("'{}': {}", text_, e.GetMsg()));
  }
}

}  // namespace ktune::filefamily
