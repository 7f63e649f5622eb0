# tattle_add_driver_cases(DRIVER script ARGS args... [HAVE what...]
#                         [LABELS labels...] [ENVIRONMENT vars...]
#                         [TIMEOUT seconds])
#
# Registers one CTest test per case of a Python test driver, as
# tattle_discover_tests() does for a user's tests: the driver names each
# case once (`DRIVER --list`, see tests/tools/driver.py), so the CMake
# files hold no table of names. Each listed line is the test's name, then
# `needs:WHAT` words (the case is registered only when WHAT is one of
# HAVE) and `label:LABEL` words (added to LABELS). The test runs
# `python3 DRIVER NAME ARGS...`; a case that exits 77 is skipped. The
# listing is read at configure time and the driver is a configure
# dependency: a new case re-registers.
function(tattle_add_driver_cases)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "DRIVER;TIMEOUT"
                        "ARGS;HAVE;LABELS;ENVIRONMENT")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
               "${arg_DRIVER}" "${PROJECT_SOURCE_DIR}/tests/tools/driver.py")
  execute_process(
    COMMAND "${CMAKE_COMMAND}" -E env PYTHONDONTWRITEBYTECODE=1
            "TATTLE_SOURCE_DIR=${PROJECT_SOURCE_DIR}"
            "${TATTLE_PYTHON}" "${arg_DRIVER}" --list
    OUTPUT_VARIABLE listing ERROR_VARIABLE errors RESULT_VARIABLE status)
  if(NOT status EQUAL 0 OR listing STREQUAL "")
    message(FATAL_ERROR "'${arg_DRIVER} --list' failed (${status}): ${errors}")
  endif()
  if(NOT arg_TIMEOUT)
    set(arg_TIMEOUT 60)
  endif()
  string(REGEX REPLACE "\n$" "" listing "${listing}")
  string(REPLACE "\n" ";" lines "${listing}")
  foreach(line IN LISTS lines)
    string(REPLACE " " ";" words "${line}")
    list(POP_FRONT words name)
    set(labels ${arg_LABELS})
    set(registered TRUE)
    foreach(word IN LISTS words)
      if(word MATCHES "^needs:(.+)$")
        if(NOT CMAKE_MATCH_1 IN_LIST arg_HAVE)
          set(registered FALSE)
        endif()
      elseif(word MATCHES "^label:(.+)$")
        list(APPEND labels "${CMAKE_MATCH_1}")
      else()
        message(FATAL_ERROR "'${arg_DRIVER} --list': case ${name}: unknown word '${word}'")
      endif()
    endforeach()
    if(NOT registered)
      continue()
    endif()
    add_test(NAME ${name}
      COMMAND ${TATTLE_PYTHON} ${arg_DRIVER} ${name} ${arg_ARGS})
    # 77: the case cannot run here (a consumer it needs is missing) and
    # said why.
    set_tests_properties(${name} PROPERTIES
      ENVIRONMENT "${arg_ENVIRONMENT}" LABELS "${labels}" TIMEOUT ${arg_TIMEOUT}
      SKIP_RETURN_CODE 77)
  endforeach()
endfunction()

# tattle_add_listed_tests(TARGET target PREFIX prefix [LABELS labels...]
#                         [ENVIRONMENT vars...] [TIMEOUT seconds])
#
# The same for a C test program of the project's own that prints its
# behaviours one a line with `--list` (tests/tracer/tracer_tests): each
# becomes the CTest test PREFIX<behaviour>, running `target <behaviour>`;
# exit status 77 is a skip (the behaviour cannot be checked here).
# The program exists only after a build, so the list is read after each
# build (like tattle_discover_tests) and CTest includes it from there.
function(tattle_add_listed_tests)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "TARGET;PREFIX;TIMEOUT"
                        "LABELS;ENVIRONMENT")
  if(NOT arg_TIMEOUT)
    set(arg_TIMEOUT 60)
  endif()
  set(ctest_file "${CMAKE_CURRENT_BINARY_DIR}/${arg_TARGET}_listed_tests.cmake")
  add_custom_command(TARGET ${arg_TARGET} POST_BUILD
    COMMAND "${CMAKE_COMMAND}"
      -D "TEST_EXECUTABLE=$<TARGET_FILE:${arg_TARGET}>"
      -D "CTEST_FILE=${ctest_file}"
      -D "TEST_PREFIX=${arg_PREFIX}"
      -D "TEST_LABELS=${arg_LABELS}"
      -D "TEST_ENVIRONMENT=${arg_ENVIRONMENT}"
      -D "TEST_TIMEOUT=${arg_TIMEOUT}"
      -P "${PROJECT_SOURCE_DIR}/tests/listed_tests_run.cmake"
    BYPRODUCTS "${ctest_file}"
    VERBATIM)
  set(include_file "${CMAKE_CURRENT_BINARY_DIR}/${arg_TARGET}_listed_include.cmake")
  file(WRITE "${include_file}"
    "if(EXISTS \"${ctest_file}\")\n  include(\"${ctest_file}\")\nelse()\n"
    "  add_test(${arg_TARGET}_NOT_BUILT ${arg_TARGET}_NOT_BUILT)\nendif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${include_file}")
endfunction()
