# Run by tattle_add_listed_tests() (tests/driver_cases.cmake) after a build:
# lists the program's behaviours (`PROGRAM --list`, one a line) and writes
# the CTest file that registers each as its own test.
execute_process(COMMAND "${TEST_EXECUTABLE}" --list
  OUTPUT_VARIABLE listing ERROR_VARIABLE errors RESULT_VARIABLE status)
if(NOT status EQUAL 0 OR listing STREQUAL "")
  message(FATAL_ERROR "'${TEST_EXECUTABLE} --list' failed (${status}): ${errors}")
endif()
string(REGEX REPLACE "\n$" "" listing "${listing}")
string(REPLACE "\n" ";" behaviours "${listing}")
set(content "# Written from '${TEST_EXECUTABLE} --list' after each build; do not edit.\n")
foreach(behaviour IN LISTS behaviours)
  set(name "${TEST_PREFIX}${behaviour}")
  string(APPEND content
    "add_test([==[${name}]==] [==[${TEST_EXECUTABLE}]==] [==[${behaviour}]==])\n"
    "set_tests_properties([==[${name}]==] PROPERTIES"
    " LABELS [==[${TEST_LABELS}]==] TIMEOUT ${TEST_TIMEOUT} SKIP_RETURN_CODE 77"
    " ENVIRONMENT [==[${TEST_ENVIRONMENT}]==])\n")
endforeach()
file(WRITE "${CTEST_FILE}" "${content}")
