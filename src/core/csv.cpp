#include "ktune/csv.hpp"

#include <fmt/format.h>

#include "ktune/error.hpp"

namespace ktune {

bool CsvReader::next(CsvRecord& rec) {
  if (pos_ >= text_.size()) return false;
  rec.line = line_;
  rec.fields.assign(1, std::string());
  bool quoted = false, was_quoted = false;
  while (pos_ < text_.size()) {
    char c = text_[pos_++];
    std::string& field = rec.fields.back();
    if (quoted) {
      if (c == '"') {
        if (pos_ < text_.size() && text_[pos_] == '"') {
          field += '"';
          ++pos_;
        } else {
          quoted = false;
        }
      } else {
        if (c == '\n') ++line_;
        field += c;
      }
      continue;
    }
    if (c == ',') {
      rec.fields.emplace_back();
      was_quoted = false;
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && pos_ < text_.size() && text_[pos_] == '\n') ++pos_;
      ++line_;
      return true;
    } else if (c == '"' && field.empty() && !was_quoted) {
      quoted = was_quoted = true;
    } else if (was_quoted) {
      throw Error(fmt::format("{}:{}: unexpected character after a closing quote", source_, line_));
    } else {
      field += c;
    }
  }
  if (quoted) throw Error(fmt::format("{}:{}: unterminated quoted field", source_, rec.line));
  return true;
}

std::vector<CsvRecord> read_csv_records(std::string_view text, const std::string& source) {
  CsvReader reader(text, source);
  std::vector<CsvRecord> out;
  CsvRecord rec;
  while (reader.next(rec))
    if (!rec.blank()) out.push_back(rec);
  return out;
}

}  // namespace ktune
