# Sources of the runner: registry, command line, scheduler, capture, results.
# What runs inside a test process (and writes memory the runner reads as
# untrusted) is under runner/test_process/.
list(APPEND TATTLE_SOURCES
  runner/registry.c
  runner/params.c
  runner/tags.c
  runner/options.c
  runner/test_process/assertions.c
  runner/test_process/slot_write.c
  runner/slot.c
  runner/capture.c
  runner/test_process/crash.c
  runner/test_process/death.c
  runner/debug_file.c
  runner/proc_maps.c
  runner/lookup_process.c
  runner/symbolize.c
  runner/stacks.c
  runner/private_memory.c
  runner/process_tree.c
  runner/job_cgroup.c
  runner/fork_server.c
  runner/test_process/child.c
  runner/scheduler.c
  runner/outcome.c
  runner/config.c
  runner/last_run.c
  runner/environment.c
  runner/plan.c
  runner/listing.c
  runner/fanout.c
  runner/plugin.c
  runner/run_queue.c
  runner/run.c
  runner/gtest.c
  runner/tap_in.c
  runner/command.c
  runner/version.c
)
