# nsdyn_add_plugin(<target> SOURCES <files...> [LIBRARIES <libs...>])
# Builds one plugin shared object. Used in the source tree and, installed,
# by out-of-tree plugin authors through find_package(nsdyn).
function(nsdyn_add_plugin target)
  cmake_parse_arguments(ARG "" "OUTPUT_DIRECTORY" "SOURCES;LIBRARIES" ${ARGN})
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
  if(ARG_OUTPUT_DIRECTORY)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${ARG_OUTPUT_DIRECTORY})
  elseif(DEFINED NSDYN_BUILD_PLUGIN_DIR)
    # In the nsdyn tree: the host's own plugins, which the tests depend on.
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${NSDYN_BUILD_PLUGIN_DIR})
    set_property(GLOBAL APPEND PROPERTY NSDYN_PLUGIN_TARGETS ${target})
  endif()
endfunction()
