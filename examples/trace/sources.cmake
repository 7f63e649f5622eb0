# The traced examples (flight recorder demos), added to tattle_examples by
# examples/CMakeLists.txt. Paths are relative to examples/.
list(APPEND TATTLE_EXAMPLE_SOURCES trace/trace_examples.c)
