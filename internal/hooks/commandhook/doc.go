// Package commandhook is the hook kind `type: command`, whole: a program the agent runs,
// judged by its exit status.
//
// Its spec half (spec.go, env.go) reads the argv and the declared variables through
// spec.HookReader, refusing every variable that would let a spec run code as the agent;
// its run half (run.go) runs argv only, no shell, an executable resolved inside the
// allowed directories, in its own process group and a fresh temp directory, with a
// scrubbed environment, SIGTERM then SIGKILL on timeout and capped output; Options
// (options.go) are --hook-command-dir and --hook-pass-env. Its timeout limit is the
// installation's --max-command-timeout. internal/hooks/all registers it.
package commandhook
