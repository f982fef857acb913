# nsdyn_add_plugin(<target> SOURCES <files...> [LIBRARIES <libs...>]
#                  [OUTPUT_DIRECTORY <dir>] [DESTINATION <dir>] [NO_INDEX])
# Builds one plugin shared object, nsdyn_<target>.so. Used in the source
# tree and, installed, by out-of-tree plugin authors through
# find_package(nsdyn).
#
# After linking, the build runs `nsdyn index` on the object: it checks every
# descriptor and writes the index nsdyn_<target>.so.nsdyn-index next to it
# (the ids, kinds and capabilities it holds). A run reads indexes instead of
# opening shared objects, and opens only those whose plugins its config
# names (docs/plugin-guide.md). A descriptor that fails the checks fails the
# build with a one-line message.
#   DESTINATION  also install the plugin and its index into <dir>
#   NO_INDEX     write no index (the loader's tests build broken plugins)
function(nsdyn_add_plugin target)
  cmake_parse_arguments(ARG "NO_INDEX" "OUTPUT_DIRECTORY;DESTINATION" "SOURCES;LIBRARIES" ${ARGN})
  add_library(${target} MODULE ${ARG_SOURCES})
  if(TARGET nsdyn::headers)
    target_link_libraries(${target} PRIVATE nsdyn::headers)
  else()
    target_link_libraries(${target} PRIVATE nsdyn_headers)
  endif()
  if(ARG_LIBRARIES)
    target_link_libraries(${target} PRIVATE ${ARG_LIBRARIES})
  endif()
  set_target_properties(${target} PROPERTIES
    PREFIX "nsdyn_" C_STANDARD 17 C_STANDARD_REQUIRED ON
    C_VISIBILITY_PRESET hidden)
  set(in_tree_builtin OFF)
  if(ARG_OUTPUT_DIRECTORY)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${ARG_OUTPUT_DIRECTORY})
  elseif(DEFINED NSDYN_BUILD_PLUGIN_DIR)
    # In the nsdyn tree: the host's own plugins, which the tests depend on.
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${NSDYN_BUILD_PLUGIN_DIR})
    set_property(GLOBAL APPEND PROPERTY NSDYN_PLUGIN_TARGETS ${target})
    set(in_tree_builtin ON)
  endif()

  if(NOT ARG_NO_INDEX)
    # The host that writes the index: the one being built in the nsdyn
    # tree, else the installed one (nsdynConfig.cmake sets NSDYN_EXECUTABLE).
    if(TARGET nsdyn_cli)
      set(indexer $<TARGET_FILE:nsdyn_cli>)
      add_dependencies(${target} nsdyn_cli)
    elseif(NSDYN_EXECUTABLE)
      set(indexer ${NSDYN_EXECUTABLE})
    else()
      message(FATAL_ERROR "nsdyn_add_plugin(${target}): no nsdyn executable to write the plugin index "
                          "(set NSDYN_EXECUTABLE, or pass NO_INDEX and name the file nsdyn_<kind>_<id>.so)")
    endif()
    add_custom_command(TARGET ${target} POST_BUILD
      COMMAND ${indexer} index $<TARGET_FILE:${target}>
      COMMENT "Checking ${target} and writing its plugin index"
      VERBATIM)
    if(in_tree_builtin AND DEFINED NSDYN_INSTALL_PLUGIN_DIR)
      install(FILES ${NSDYN_BUILD_PLUGIN_DIR}/nsdyn_${target}.so.nsdyn-index
        DESTINATION ${NSDYN_INSTALL_PLUGIN_DIR})
    endif()
  endif()
  if(ARG_DESTINATION)
    install(TARGETS ${target} LIBRARY DESTINATION ${ARG_DESTINATION})
    if(NOT ARG_NO_INDEX)
      install(FILES $<TARGET_FILE:${target}>.nsdyn-index DESTINATION ${ARG_DESTINATION})
    endif()
  endif()
endfunction()
