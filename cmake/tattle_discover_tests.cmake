# tattle_discover_tests(TARGET [WORKING_DIRECTORY dir] [TEST_PREFIX prefix]
#                       [EXTRA_ARGS args...] [PROPERTIES name value...])
#
# Registers every TEST of a tattle test executable as its own CTest test,
# named suite/name, with LABELS = its tags, TIMEOUT from its timeout and
# SKIP_RETURN_CODE so a skipped test shows as skipped. The list is read
# after each build by running the executable with `--list --json` (like
# GoogleTest's gtest_discover_tests), so adding a TEST needs no CMake edit.
#
# Each of those runs also leaves its JSON Lines stream in a report
# directory (TATTLE_REPORT_DIR in the test's environment), so that after
# `ctest -j` the command `tattle merge DIR -o report.json` gives one report
# of every test. DIR is ${CMAKE_BINARY_DIR}/tattle-reports unless REPORT_DIR
# names another; NO_REPORT_DIR turns the streams off. Streams accumulate:
# empty the directory before a run whose streams you will merge.
function(tattle_discover_tests target)
  # Found beside this file, wherever the caller is: a parent project that
  # added tattle with add_subdirectory does not see tattle's variables.
  set(discover_script
    "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/tattle_discover_tests_run.cmake")
  cmake_parse_arguments(PARSE_ARGV 1 arg "NO_REPORT_DIR"
                        "WORKING_DIRECTORY;TEST_PREFIX;REPORT_DIR"
                        "EXTRA_ARGS;PROPERTIES")
  if(arg_NO_REPORT_DIR)
    set(arg_REPORT_DIR "")
  elseif(NOT arg_REPORT_DIR)
    set(arg_REPORT_DIR "${CMAKE_BINARY_DIR}/tattle-reports")
  endif()
  if(NOT arg_WORKING_DIRECTORY)
    set(arg_WORKING_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}")
  endif()
  set(ctest_file "${CMAKE_CURRENT_BINARY_DIR}/${target}_tattle_tests.cmake")
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND "${CMAKE_COMMAND}"
      -D "TEST_EXECUTABLE=$<TARGET_FILE:${target}>"
      -D "CTEST_FILE=${ctest_file}"
      -D "TEST_PREFIX=${arg_TEST_PREFIX}"
      -D "TEST_WORKING_DIRECTORY=${arg_WORKING_DIRECTORY}"
      -D "TEST_EXTRA_ARGS=${arg_EXTRA_ARGS}"
      -D "TEST_PROPERTIES=${arg_PROPERTIES}"
      -D "TEST_REPORT_DIR=${arg_REPORT_DIR}"
      -P "${discover_script}"
    BYPRODUCTS "${ctest_file}"
    VERBATIM)
  # CTest reads the list through a guard, so a build that has not produced
  # it yet (or failed) does not stop CTest for the whole tree.
  set(include_file "${CMAKE_CURRENT_BINARY_DIR}/${target}_tattle_include.cmake")
  file(WRITE "${include_file}"
    "if(EXISTS \"${ctest_file}\")\n  include(\"${ctest_file}\")\nelse()\n"
    "  add_test(${target}_NOT_BUILT ${target}_NOT_BUILT)\nendif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${include_file}")
endfunction()
