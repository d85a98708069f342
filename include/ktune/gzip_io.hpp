#pragma once
// Whole-file text I/O that is transparent to gzip: results are committed as .csv.gz / .json.gz,
// and every reader and writer of interchange files should accept either form.
#include <string>
#include <string_view>

namespace ktune {

// Reads the whole file; gzip-compressed content is inflated whatever the file is called.
// "-" reads stdin. Throws Error naming the path when it cannot be read.
std::string read_text_file(const std::string& path);

// Writes text to path, gzip-compressed when the path ends in ".gz"; "-" writes stdout.
// A regular file is written beside the target and renamed into place, so a failed write never
// leaves a half-written file under the target name; a symbolic link is followed (the file it
// points to is replaced, the link stays a link); a FIFO or device is written into directly.
// Throws Error naming the path.
void write_text_file(const std::string& path, std::string_view text);

bool has_gz_suffix(std::string_view path);

}  // namespace ktune
