# Sources of the runner: registry, command line, scheduler, capture, results.
list(APPEND TATTLE_SOURCES
  runner/registry.c
  runner/tags.c
  runner/options.c
  runner/assertions.c
  runner/slot.c
  runner/capture.c
  runner/crash.c
  runner/symbolize.c
  runner/private_memory.c
  runner/process_tree.c
  runner/job_cgroup.c
  runner/fork_server.c
  runner/child.c
  runner/scheduler.c
  runner/outcome.c
  runner/config.c
  runner/last_run.c
  runner/run.c
)
