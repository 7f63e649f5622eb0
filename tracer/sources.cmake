# Sources of the flight recorder: arena, rings, recorder, mailboxes,
# snapshot, session (freeze).
list(APPEND TATTLE_SOURCES
  tracer/arena.c
  tracer/clock.c
  tracer/mailbox.c
  tracer/recorder.c
  tracer/ring.c
  tracer/session.c
  tracer/snapshot.c
)
