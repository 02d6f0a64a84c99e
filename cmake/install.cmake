# `cmake --install`: the rag program, the plugins, and the SDK for plugins built out of tree —
# the public headers, librag_core and a CMake package (find_package(rag)).
include(CMakePackageConfigHelpers)
set(RAG_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/rag)

set_target_properties(rag PROPERTIES INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}")
install(TARGETS rag RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
set_target_properties(rag_serve PROPERTIES INSTALL_RPATH "$ORIGIN")
install(TARGETS rag_serve LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
set_target_properties(rag_core PROPERTIES EXPORT_NAME core)
set_target_properties(rag_dll PROPERTIES EXPORT_NAME dll)
install(TARGETS rag_core rag_dll EXPORT ragTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY core/include/rag DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT ragTargets NAMESPACE rag:: DESTINATION ${RAG_CMAKE_DIR})

configure_package_config_file(cmake/ragConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/ragConfig.cmake
  INSTALL_DESTINATION ${RAG_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/ragConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/ragConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/ragConfigVersion.cmake
  cmake/RagPlugin.cmake DESTINATION ${RAG_CMAKE_DIR})
