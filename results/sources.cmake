# Sources of the results model: the names and predicates of results, and
# their JSON form (built by the runner, read by every reporter and by the
# `tattle` command).
list(APPEND TATTLE_SOURCES
  results/names.c
  results/model.c
  results/record.c
  results/json.c
  results/json_writer.c
  results/json_events.c
  results/error_groups.c
  results/json_scan.c
  results/read.c
)
