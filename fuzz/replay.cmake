# Included from tests/CMakeLists.txt: the fuzz targets' corpus replay (any
# compiler) and the short fuzz run (clang + libFuzzer). docs/fuzzing.md.
add_executable(fuzz_replay ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_replay.c
  ${PROJECT_SOURCE_DIR}/fuzz/fuzz_entry.c)
target_include_directories(fuzz_replay PRIVATE ${PROJECT_SOURCE_DIR}/fuzz)
target_compile_definitions(fuzz_replay PRIVATE NSDYN_FUZZ_CONFIG_DIR="${PROJECT_SOURCE_DIR}/configs")
target_link_libraries(fuzz_replay PRIVATE nsdyn)
get_property(nsdyn_fuzz_plugins GLOBAL PROPERTY NSDYN_PLUGIN_TARGETS)
add_dependencies(fuzz_replay ${nsdyn_fuzz_plugins})
set(nsdyn_fuzz_corpus ${CMAKE_CURRENT_BINARY_DIR}/fuzz-corpus)
add_test(NAME fuzz_replay COMMAND bash -c
  "bash \"$0\" \"$1\" > /dev/null && \"$2\" --min 300 --config \"$1/config\" \"$3/config\" --set \"$1/set\" \"$3/set\""
  ${PROJECT_SOURCE_DIR}/fuzz/make-corpus.sh ${nsdyn_fuzz_corpus} $<TARGET_FILE:fuzz_replay>
  ${PROJECT_SOURCE_DIR}/fuzz/regressions)
set_tests_properties(fuzz_replay PROPERTIES TIMEOUT 900)
# The short fuzz run: its own clang build under this build folder. Skipped
# (77) when clang or libFuzzer is missing; not repeated in sanitizer builds.
if(NOT NSDYN_SANITIZE AND NOT NSDYN_FUZZ)
  add_test(NAME fuzz_short COMMAND bash ${PROJECT_SOURCE_DIR}/fuzz/run-short.sh
    ${PROJECT_BINARY_DIR}/fuzz-build)
  # Alone: its clang build would slow the timed tests beside it.
  set_tests_properties(fuzz_short PROPERTIES TIMEOUT 1800 SKIP_RETURN_CODE 77 RUN_SERIAL TRUE)
endif()
