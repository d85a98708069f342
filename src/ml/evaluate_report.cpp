// CSV and Markdown writers for an evaluation (see evaluate.hpp).
#include <fmt/format.h>

#include <cmath>
#include <map>
#include <ostream>
#include <set>

#include "ktune/ml/evaluate.hpp"

namespace ktune::ml {
namespace {

std::string num(double v, int digits = 2) {
  return std::isfinite(v) ? fmt::format("{:.{}f}", v, digits) : "";
}

// Quotes a CSV field when it holds a comma, quote or newline.
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string md_cell(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '|' ? std::string("\\|") : std::string(1, c == '\n' ? ' ' : c);
  return out;
}

// A Markdown table's head: the leading columns and their rule, then one right-aligned column per K.
void k_table_head(std::ostream& out, const char* columns, const char* rule,
                  const std::set<int>& ks) {
  out << columns;
  for (int k : ks) out << fmt::format(" K={} |", k);
  out << '\n' << rule;
  for (size_t i = 0; i < ks.size(); ++i) out << "---:|";
  out << '\n';
}

}  // namespace

void write_csv(const EvalResult& r, std::ostream& out) {
  out << "split,norm,pruner,selector,k,pct_of_oracle,ceiling_pct\n";
  for (const auto& row : r.rows) {
    const bool ceiling_row = row.selector.empty();
    out << csv_field(row.split) << ',' << row.norm << ',' << csv_field(row.pruner) << ','
        << csv_field(row.selector) << ',' << row.k << ','
        << (row.ok && !ceiling_row ? num(row.metrics.pct_of_oracle, 4) : "") << ','
        << (row.ok ? num(row.metrics.ceiling_pct, 4) : "") << '\n';
  }
}

void write_metrics_csv(const EvalResult& r, std::ostream& out) {
  out << "split,norm,pruner,selector,k,pct_of_oracle,ceiling_pct,accuracy_oracle,"
         "accuracy_shipped,validity,refused_rate,unservable_rate,speedup_vs_fixed,predict_us,"
         "problems,own_share,own_time_share,note\n";
  for (const auto& row : r.rows) {
    if (row.selector.empty() && row.ok) continue;  // ceilings are all in the main CSV
    const auto& m = row.metrics;
    out << csv_field(row.split) << ',' << row.norm << ',' << csv_field(row.pruner) << ','
        << csv_field(row.selector) << ',' << row.k << ',';
    if (row.ok) {
      out << num(m.pct_of_oracle, 4) << ',' << num(m.ceiling_pct, 4) << ','
          << num(m.accuracy_oracle, 4) << ',' << num(m.accuracy_shipped, 4) << ','
          << num(m.validity, 4) << ',' << num(m.refused_rate, 4) << ',' << num(m.unservable_rate, 4)
          << ',' << num(m.speedup_vs_reference, 4) << ',' << num(m.predict_ns / 1000, 3) << ','
          << m.problems << ',' << num(m.own_share, 4) << ',' << num(m.own_time_share, 4) << ",\n";
    } else {
      out << ",,,,,,,,,,,," << csv_field(row.note) << '\n';
    }
  }
}

void write_markdown(const EvalResult& r, std::ostream& out) {
  out << fmt::format("# ktune evaluation: {} on {}\n\n", r.family.empty() ? "?" : r.family,
                     r.device.empty() ? "?" : r.device);
  out << fmt::format("{} problems × {} configs; {:.1f} s.\n\n", r.problems, r.configs, r.seconds);
  out << fmt::format(
      "Scoring: % of oracle = 100 × geometric mean over held-out problems of perf(served) / "
      "perf(best valid config of the whole space); a refused pick is served by its fallback; a "
      "ratio of 0 (no shipped config valid) counts as {}. Ceiling = the same for a perfect "
      "selector over the K shipped configs.\n\n",
      kInvalidRatio);
  std::set<int> ceiling_ks, selector_ks;
  for (const auto& row : r.rows) (row.selector.empty() ? ceiling_ks : selector_ks).insert(row.k);
  size_t failed = 0;
  for (const auto& row : r.rows) failed += row.ok ? 0 : 1;

  for (const auto& split : r.split_names) {
    std::string sizes;
    for (const auto& [name, tt] : r.split_sizes) {
      if (name == split) sizes = fmt::format("train {}, test {}", tt.first, tt.second);
    }
    out << fmt::format("## Split {} ({})\n\n", split, sizes);
    for (const auto& [name, pct] : r.fixed_pct) {
      if (name != split) continue;
      for (const auto& f : r.fixed_configs) {
        if (f.split != split) continue;
        out << fmt::format(
            "Best single fixed config: {}% of oracle (`{}`, the best geometric mean of scaled "
            "perf on the training problems; where it is not valid, the safest config `{}` and "
            "then the safe order stand in).\n\n",
            num(pct, 1), f.config, f.safest);
      }
    }

    // Table 1: ceilings.
    out << "### Table 1: ceiling (% of oracle reachable with the K shipped configs)\n\n";
    k_table_head(out, "| pruner | norm |", "|---|---|", ceiling_ks);
    std::map<std::pair<std::string, std::string>, std::map<int, std::string>> t1;
    std::vector<std::pair<std::string, std::string>> t1_order;
    for (const auto& row : r.rows) {
      if (row.split != split || !row.selector.empty()) continue;
      const auto key = std::make_pair(row.pruner, row.norm);
      if (!t1.count(key)) t1_order.push_back(key);
      t1[key][row.k] = row.ok ? num(row.metrics.ceiling_pct, 1) : "—";
    }
    for (const auto& key : t1_order) {
      out << "| " << key.first << " | " << key.second << " |";
      for (int k : ceiling_ks) out << ' ' << (t1[key].count(k) ? t1[key][k] : "") << " |";
      out << '\n';
    }

    // Table 2: selectors, best pruner/norm per cell.
    out << "\n### Table 2: selectors (% of oracle; best pruner/norm for each K)\n\n";
    k_table_head(out, "| selector |", "|---|", selector_ks);
    std::map<std::string, std::map<int, const EvalRow*>> best;
    std::vector<std::string> sel_order;
    for (const auto& row : r.rows) {
      if (row.split != split || row.selector.empty()) continue;
      if (!best.count(row.selector)) sel_order.push_back(row.selector);
      const EvalRow*& b = best[row.selector][row.k];
      if (row.ok && std::isfinite(row.metrics.pct_of_oracle) &&
          (!b || row.metrics.pct_of_oracle > b->metrics.pct_of_oracle)) {
        b = &row;
      }
    }
    for (const auto& s : sel_order) {
      out << "| " << s << " |";
      for (int k : selector_ks) {
        const EvalRow* b = best[s].count(k) ? best[s][k] : nullptr;
        out << ' '
            << (b ? fmt::format("{} ({}/{})", num(b->metrics.pct_of_oracle, 1), b->pruner, b->norm)
                  : "—")
            << " |";
      }
      out << '\n';
    }

    // Table 3: classic metrics at the largest selector K, best-ceiling pruner/norm.
    if (!selector_ks.empty()) {
      const int k = *selector_ks.rbegin();
      const EvalRow* top = nullptr;
      for (const auto& row : r.rows) {
        if (row.split == split && row.k == k && !row.selector.empty() && row.ok &&
            std::isfinite(row.metrics.ceiling_pct) &&
            (!top || row.metrics.ceiling_pct > top->metrics.ceiling_pct)) {
          top = &row;
        }
      }
      if (top) {
        out << fmt::format(
            "\n### Table 3: classic metrics at K={}, pruner {}, norm {} (ceiling {}%)\n\n", k,
            top->pruner, top->norm, num(top->metrics.ceiling_pct, 1));
        out << "| selector | % of oracle | acc. vs oracle | acc. vs best shipped | validity | "
               "refused | speedup vs fixed | predict µs | own kernels (problems / time) "
               "|\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
        for (const auto& row : r.rows) {
          if (row.split != split || row.k != k || row.selector.empty() ||
              row.pruner != top->pruner || row.norm != top->norm) {
            continue;
          }
          const auto& m = row.metrics;
          if (!row.ok) {
            out << "| " << row.selector << " | failed: " << md_cell(row.note) << " ||||||||\n";
            continue;
          }
          out << fmt::format("| {} | {} | {} | {} | {} | {} | {}× | {} | {}% / {}% |\n",
                             row.selector, num(m.pct_of_oracle, 1),
                             num(100 * m.accuracy_oracle, 1) + "%",
                             num(100 * m.accuracy_shipped, 1) + "%", num(100 * m.validity, 1) + "%",
                             num(100 * m.refused_rate, 1) + "%", num(m.speedup_vs_reference, 3),
                             num(m.predict_ns / 1000, 1), num(100 * m.own_share, 1),
                             num(100 * m.own_time_share, 1));
        }
      }
    }
    out << '\n';
  }
  if (failed > 0) {
    out << fmt::format("{} cells could not be computed; the metrics CSV names each reason.\n",
                       failed);
    std::set<std::string> notes;
    for (const auto& row : r.rows) {
      if (!row.ok) notes.insert(row.note);
    }
    for (const auto& n : notes) out << "- " << md_cell(n) << '\n';
  }
}

}  // namespace ktune::ml
