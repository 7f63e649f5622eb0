# tattle_instrument(TARGET)
#
# Compiles TARGET's own sources with -finstrument-functions, so that a test
# tagged `trace_calls` records every entry and exit of its functions. The
# hooks (__cyg_profile_func_enter/exit, tattle_call_hooks.c next to this
# file) are added to TARGET's sources: libtattle defines none, so a program
# with hooks of its own links it and keeps them. They cost one predictable
# branch in every other test. TARGET must have C enabled. tattle's headers and the system's (/usr/include) are kept out, so
# only the user's code is hooked: with GCC by
# -finstrument-functions-exclude-file-list, with Clang by instrumenting
# after inlining (header functions inlined into the caller add no calls).
function(tattle_instrument target)
  if(NOT TARGET ${target})
    message(FATAL_ERROR "tattle_instrument: ${target} is not a target")
  endif()
  set(exclude "-finstrument-functions-exclude-file-list=/usr/include/,include/tattle/")
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANG_AND_ID:C,GNU>:-finstrument-functions>
    $<$<COMPILE_LANG_AND_ID:C,GNU>:${exclude}>
    $<$<COMPILE_LANG_AND_ID:CXX,GNU>:-finstrument-functions>
    $<$<COMPILE_LANG_AND_ID:CXX,GNU>:${exclude}>
    $<$<COMPILE_LANG_AND_ID:C,Clang>:-finstrument-functions-after-inlining>
    $<$<COMPILE_LANG_AND_ID:CXX,Clang>:-finstrument-functions-after-inlining>)
  target_sources(${target} PRIVATE
    ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/tattle_call_hooks.c)
endfunction()
