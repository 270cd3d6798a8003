#pragma once

// What every `pathfind` subcommand is to main.cc: the CLI11 subcommand its
// add_*_command registered, and what runs it once the command line is parsed
// and the client made. Also how a command prints an RPC result.

#include <CLI/CLI.hpp>
#include <functional>
#include <iostream>
#include <memory>
#include <string>

#include "cli_errors.h"
#include "cli_format.h"
#include "pathfinder/client.h"

namespace pathfinder::cli {

struct Command {
  CLI::App* app = nullptr;  // true (*app) when the command line chose it
  // Calls the server and prints the answer; returns the exit code. Throws
  // UsageError or FileError for bad arguments or local input (exit code 2).
  std::function<int(Client& client, bool json)> run;
};

// What add_command gives: the new subcommand (app), the arguments its options
// are to be bound to (args, which live as long as command), and the Command
// whose run calls run(client, *args, json).
template <class Args>
struct AddedCommand {
  CLI::App* app;
  Args* args;
  Command command;
};

// Registers subcommand `name` on app (--help lists them in the order of the calls).
template <class Args>
AddedCommand<Args> add_command(CLI::App& app, const std::string& name,
                               const std::string& description,
                               int (*run)(Client& client, const Args& args, bool json)) {
  auto args = std::make_shared<Args>();
  CLI::App* command = app.add_subcommand(name, description);
  return {command, args.get(), Command{command, [args, run](Client& client, bool json) {
                                         return run(client, *args, json);
                                       }}};
}

// Prints an RPC result of client: the JSON or human text on stdout when OK,
// else the status on stderr (report_status). Returns the exit code.
template <class T, class Human>
int report(const Client& client, const pathfinder::Result<T>& result, bool json, Human human) {
  if (!result.ok()) return report_status(client, result.status, json);
  if (json) {
    std::cout << to_json(result.value) << "\n";
  } else {
    const std::string text = human(result.value);
    if (!text.empty()) {
      std::cout << text << "\n";
    }
  }
  return kExitOk;
}

}  // namespace pathfinder::cli
