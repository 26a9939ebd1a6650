/*
 * commands.h: the graft tool's subcommands.
 *
 * Each subcommand is a main-like function and a help text; main.c lists them in its command
 * table. A subcommand gets argv[0] = its own name and the arguments after it. main.c answers
 * `graft CMD --help` (and -h) itself, so a command function never sees --help.
 * It returns a TOOL_EXIT_* status and has reported any error as one line on stderr.
 */
#ifndef GRAFT_TOOL_COMMANDS_H
#define GRAFT_TOOL_COMMANDS_H

typedef int (*tool_command_fn)(int argc, char **argv);

typedef struct tool_command {
  const char *name;
  const char *synopsis; /* the arguments, after "graft NAME " */
  const char *summary;  /* one line for the command list */
  const char *details;  /* the rest of `graft NAME --help`: options and what it prints */
  tool_command_fn run;
} tool_command;

/* inspect.c */
extern const char tool_inspect_synopsis[], tool_inspect_summary[], tool_inspect_details[];
int tool_inspect_main(int argc, char **argv);

/* dot.c */
extern const char tool_dot_synopsis[], tool_dot_summary[], tool_dot_details[];
int tool_dot_main(int argc, char **argv);

/* run.c */
extern const char tool_run_synopsis[], tool_run_summary[], tool_run_details[];
int tool_run_main(int argc, char **argv);

/* devices.c */
extern const char tool_devices_synopsis[], tool_devices_summary[], tool_devices_details[];
int tool_devices_main(int argc, char **argv);

#endif /* GRAFT_TOOL_COMMANDS_H */
