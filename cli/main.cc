// The deid command-line tool (cli/app.cc has the command line).
#include "commands.h"

int main(int argc, char** argv) {
  return deid::cli::run(argc, argv, &deid::cli::add_serve_command, &deid::cli::add_share_command);
}
