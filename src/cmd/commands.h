/* The subcommands.  Add a command: write src/cmd/cmd_NAME.c with
 * int cmd_NAME(int argc, char **argv), declare it here and list it in
 * main.c's table. */
#ifndef FG_COMMANDS_H
#define FG_COMMANDS_H

int cmd_share(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_collapse(int argc, char **argv);
int cmd_protocol(int argc, char **argv);
int cmd_subsystems(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_runs(int argc, char **argv);
int cmd_hotfiles(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_days(int argc, char **argv);
int cmd_bisect(int argc, char **argv);
int cmd_metrics(int argc, char **argv);

#endif
