# Sources of the reporters: the plugin registry and one file per format.
list(APPEND TATTLE_SOURCES
  reporter/registry.c
  reporter/console.c
  reporter/json.c
  reporter/compact.c
  reporter/jsonl.c
  reporter/xml_writer.c
  reporter/plain_text.c
  reporter/report_output.c
  reporter/junit.c
  reporter/github.c
  reporter/tap.c
  reporter/ctrf.c
  reporter/sequence_diagram.c
  reporter/html_writer.c
  reporter/html.c
  reporter/call_tree.c
  reporter/flamegraph.c
  reporter/chrome_trace.c
)
