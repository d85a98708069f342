#pragma once
// The one RFC 4180 reader of the project (ktune's CSV, foreign long CSVs): quoted fields,
// doubled quotes, quoted line breaks, CRLF; records keep the physical line they start on so
// errors can name file:line.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ktune {

struct CsvRecord {
  size_t line = 0;  // physical line where the record starts, 1-based
  std::vector<std::string> fields;
  bool blank() const { return fields.size() == 1 && fields[0].empty(); }
};

class CsvReader {
 public:
  // text must outlive the reader; source names the input in error messages.
  CsvReader(std::string_view text, std::string source) : text_(text), source_(std::move(source)) {}
  // Reads the next record (a blank line gives a blank() record); false at the end. Throws
  // Error naming source:line for an unterminated quote or text after a closing quote.
  bool next(CsvRecord& record);

 private:
  std::string_view text_;
  std::string source_;
  size_t pos_ = 0;
  size_t line_ = 1;
};

// Every record of text, blank lines left out.
std::vector<CsvRecord> read_csv_records(std::string_view text, const std::string& source);

}  // namespace ktune
