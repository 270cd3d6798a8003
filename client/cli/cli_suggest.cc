#include "cli_suggest.h"

#include <algorithm>

namespace pathfinder::cli {

std::size_t edit_distance(const std::string& a, const std::string& b) {
  // Optimal string alignment: Levenshtein plus adjacent transpositions.
  const std::size_t n = a.size();
  const std::size_t m = b.size();
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1, 0));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t substitution = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + substitution});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[n][m];
}

std::optional<std::string> nearest(const std::string& word,
                                   const std::vector<std::string>& candidates) {
  std::optional<std::string> best;
  std::size_t best_distance = 0;
  for (const auto& candidate : candidates) {
    const std::size_t distance = edit_distance(word, candidate);
    if (!best || distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  if (!best || best_distance == 0 || best_distance > 2 || best_distance >= word.size()) {
    return std::nullopt;
  }
  return best;
}

namespace {

// The long names ("--eight") of command's options.
std::vector<std::string> flag_names(const CLI::App& command) {
  std::vector<std::string> names;
  for (const CLI::Option* option : command.get_options()) {
    for (const auto& name : option->get_lnames()) names.push_back("--" + name);
  }
  return names;
}

// Whether option (of command) takes a value from the next argument.
bool takes_value(const CLI::App& command, const std::string& flag) {
  for (const CLI::Option* option : command.get_options()) {
    if (option->check_lname(flag.substr(2))) return option->get_items_expected_max() > 0;
  }
  return false;
}

}  // namespace

std::vector<std::string> suggestions(const CLI::App& app, const std::vector<std::string>& args) {
  std::vector<std::string> command_names;
  for (const CLI::App* command : app.get_subcommands({})) {
    command_names.push_back(command->get_name());
  }
  std::vector<std::string> lines;
  const auto did_you_mean = [&](const std::string& candidate) {
    lines.push_back("did you mean '" + candidate + "'?");
  };

  const CLI::App* command = nullptr;
  bool after_double_dash = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (after_double_dash) continue;
    if (arg == "--") {
      after_double_dash = true;
      continue;
    }
    if (arg.starts_with("--")) {
      const std::string flag = arg.substr(0, arg.find('='));
      const bool global = app.get_option_no_throw(flag) != nullptr;
      const bool local = command != nullptr && command->get_option_no_throw(flag) != nullptr;
      if (global || local) {
        const CLI::App& owner = local ? *command : app;
        if (arg.find('=') == std::string::npos && takes_value(owner, flag)) ++i;  // its value
        continue;
      }
      std::vector<std::string> names = flag_names(app);
      if (command != nullptr) {
        const auto local_names = flag_names(*command);
        names.insert(names.end(), local_names.begin(), local_names.end());
      }
      if (const auto candidate = nearest(flag, names)) did_you_mean(*candidate);
      continue;
    }
    if (command == nullptr && !arg.starts_with("-")) {
      const auto known = std::find(command_names.begin(), command_names.end(), arg);
      if (known != command_names.end()) {
        command = app.get_subcommand(arg);
      } else {
        lines.push_back("unknown command '" + arg + "'");
        if (const auto candidate = nearest(arg, command_names)) did_you_mean(*candidate);
        return lines;  // the rest belongs to a command we can only guess
      }
    }
  }
  return lines;
}

}  // namespace pathfinder::cli
