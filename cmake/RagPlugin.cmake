# rag_add_plugin_module(<name> SOURCES <file>...)
# Builds lib<name>.so, a plugin that `rag` loads: C++20, hidden visibility (only the entry point
# of RAG_PLUGIN / RAG_PLUGIN_CLASS is exported), linked to rag::core.
function(rag_add_plugin_module name)
  cmake_parse_arguments(ARG "" "" "SOURCES" ${ARGN})
  add_library(${name} MODULE ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE rag::core)
  target_compile_features(${name} PRIVATE cxx_std_20)
  set_target_properties(${name} PROPERTIES PREFIX "lib" CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
endfunction()
