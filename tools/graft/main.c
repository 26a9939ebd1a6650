/*
 * main.c: the graft command-line tool: the command table, help, version and dispatch.
 *
 *   graft COMMAND [ARGS...]
 *
 * The tool uses only Graft's public C API (<graft/graft.h>). Exit status: 0 on success, 1 when
 * a command fails, 2 for a bad command line; every error is one line on stderr.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "common.h"

static const tool_command commands[] = {
    {"inspect", tool_inspect_synopsis, tool_inspect_summary, tool_inspect_details, tool_inspect_main},
    {"dot", tool_dot_synopsis, tool_dot_summary, tool_dot_details, tool_dot_main},
    {"run", tool_run_synopsis, tool_run_summary, tool_run_details, tool_run_main},
    {"devices", tool_devices_synopsis, tool_devices_summary, tool_devices_details, tool_devices_main},
};
static const size_t num_commands = sizeof commands / sizeof commands[0];

static const tool_command *find_command(const char *name) {
  for (size_t i = 0; i < num_commands; ++i)
    if (strcmp(commands[i].name, name) == 0) return &commands[i];
  return NULL;
}

static int is_help_option(const char *arg) { return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0; }

static void print_usage(void) {
  printf("Usage: graft COMMAND [ARGS...]\n"
         "\n"
         "Inspects and runs TensorFlow GraphDef files with Graft %s.\n"
         "\n"
         "Commands:\n",
         graft_version());
  for (size_t i = 0; i < num_commands; ++i)
    printf("  graft %s %s\n      %s\n", commands[i].name, commands[i].synopsis, commands[i].summary);
  printf("  graft help [COMMAND]\n      show this help, or a command's help\n"
         "\n"
         "Options:\n"
         "  -h, --help     show this help\n"
         "  --version      show the version of the Graft library\n"
         "\n"
         "'graft COMMAND --help' shows a command's options. Exit status: 0 on success, 1 when a\n"
         "command fails, 2 for a bad command line.\n");
}

static void print_command_help(const tool_command *command) {
  printf("Usage: graft %s %s\n\n%c%s.\n\n%s", command->name, command->synopsis,
         toupper((unsigned char)command->summary[0]), command->summary + 1, command->details);
}

/* `graft help [COMMAND]`. */
static int help_main(int argc, char **argv) {
  if (argc < 2) {
    print_usage();
    return TOOL_EXIT_OK;
  }
  if (argc > 2) return tool_usage_error("help", "unexpected argument '%s'", argv[2]);
  if (strcmp(argv[1], "help") == 0 || is_help_option(argv[1])) {
    print_usage();
    return TOOL_EXIT_OK;
  }
  const tool_command *command = find_command(argv[1]);
  if (command == NULL) return tool_usage_error("help", "unknown command '%s'", argv[1]);
  print_command_help(command);
  return TOOL_EXIT_OK;
}

static int dispatch(int argc, char **argv) {
  if (argc < 2) return tool_usage_error(NULL, "missing a command");
  const char *name = argv[1];
  if (is_help_option(name)) {
    print_usage();
    return TOOL_EXIT_OK;
  }
  if (strcmp(name, "--version") == 0) {
    printf("graft %s\n", graft_version());
    return TOOL_EXIT_OK;
  }
  if (strcmp(name, "help") == 0) return help_main(argc - 1, argv + 1);
  if (name[0] == '-') return tool_usage_error(NULL, "unknown option '%s'", name);

  const tool_command *command = find_command(name);
  if (command == NULL) return tool_usage_error(NULL, "unknown command '%s'", name);
  /* `graft CMD ... --help ...` (before any "--") shows the command's help. */
  for (int i = 2; i < argc && strcmp(argv[i], "--") != 0; ++i) {
    if (is_help_option(argv[i])) {
      print_command_help(command);
      return TOOL_EXIT_OK;
    }
  }
  return command->run(argc - 1, argv + 1);
}

int main(int argc, char **argv) {
  if (GRAFT_VERSION_CHECK() != GRAFT_OK) {
    tool_error_graft("this graft tool does not fit the Graft library it loaded");
    return TOOL_EXIT_FAILURE;
  }
  int status = dispatch(argc, argv);
  if (status != TOOL_EXIT_OK) {
    fflush(stdout); /* the failure is reported already: one line only */
    return status;
  }
  return tool_finish_stdout();
}
