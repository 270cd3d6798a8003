// Unit tests of the reader behind --admin-token-file, --tls-cert and
// --store-conninfo-file.

#include "runtime/config_file.h"

#include <gtest/gtest.h>

#include <string>

#include "support/server_process.h"

namespace {

using pathserver::ConfigFileError;
using pathserver::read_config_file;

std::string error_of(const std::string& path) {
  try {
    (void)read_config_file(path);
  } catch (const ConfigFileError& e) {
    return e.what();
  }
  return "no error";
}

TEST(ConfigFileTest, ReadsTheWholeFileAsBytes) {
  const pathtest::TempDir dir("pathfinder-config-file");
  const std::string bytes = std::string("line one\n\0two\r\n", 15) + "  ";
  pathtest::write_file(dir.file("f"), bytes);
  EXPECT_EQ(read_config_file(dir.file("f")), bytes);
  pathtest::write_file(dir.file("empty"), "");
  EXPECT_EQ(read_config_file(dir.file("empty")), "");
}

TEST(ConfigFileTest, MissingFilesAndDirectoriesSayWhy) {
  const pathtest::TempDir dir("pathfinder-config-file");
  EXPECT_EQ(error_of(dir.file("missing")), "cannot open: No such file or directory");
  EXPECT_EQ(error_of(dir.file("")), "is a directory");
}

TEST(ConfigFileTest, TrimsTrailingWhitespaceOnly) {
  EXPECT_EQ(pathserver::trim_trailing_space(" a b\t \r\n\v\f\n"), " a b");
  EXPECT_EQ(pathserver::trim_trailing_space("\n \n"), "");
  EXPECT_EQ(pathserver::trim_trailing_space(""), "");
}

}  // namespace
