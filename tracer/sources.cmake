# Sources of the flight recorder: arena, rings, recorder, mailboxes,
# snapshot, session (freeze). What records inside a test process is under
# tracer/test_process/.
list(APPEND TATTLE_SOURCES
  tracer/arena.c
  tracer/clock.c
  tracer/exec/hand_down.c
  tracer/freeze.c
  tracer/overhead.c
  tracer/peek.c
  tracer/test_process/deaths.c
  tracer/test_process/ipc.c
  tracer/test_process/mailbox.c
  tracer/test_process/recorder.c
  tracer/ring.c
  tracer/session.c
  tracer/snapshot.c
  tracer/static_strings.c
)
