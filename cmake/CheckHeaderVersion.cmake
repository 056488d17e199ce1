# SPDX-License-Identifier: Apache-2.0 OR MIT
# One version source: project(VERSION) in CMakeLists.txt.  The public header
# keeps its own CF_VERSION_* macros (so it stands alone when installed);
# configuring fails when they differ from the project's version.
file(STRINGS ${PROJECT_SOURCE_DIR}/include/cuckoofilter.h cf_version_lines
  REGEX "^#define CF_VERSION_(MAJOR|MINOR|PATCH|STRING) ")
set(cf_header_version "")
foreach(part MAJOR MINOR PATCH)
  string(REGEX MATCH "#define CF_VERSION_${part} ([0-9]+)" _ "${cf_version_lines}")
  list(APPEND cf_header_version "${CMAKE_MATCH_1}")
endforeach()
list(JOIN cf_header_version "." cf_header_version)
string(REGEX MATCH "#define CF_VERSION_STRING \"([^\"]*)\"" _ "${cf_version_lines}")
set(cf_header_string "${CMAKE_MATCH_1}")
if(NOT cf_header_version STREQUAL PROJECT_VERSION OR NOT cf_header_string STREQUAL PROJECT_VERSION)
  message(FATAL_ERROR "include/cuckoofilter.h says ${cf_header_version} (\"${cf_header_string}\") "
    "but project(VERSION) says ${PROJECT_VERSION}: update CF_VERSION_* in the header")
endif()
# Re-checked whenever the header changes.
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/include/cuckoofilter.h)
