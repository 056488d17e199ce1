# The dump stream's header codec (cf_redis_dump.c/.h: plain C, no Redis API),
# one static library that the module and the `cuckoo` CLI (export/import)
# both link.  Included by redis/ and tools/, whichever is configured first
# defines it (either may be built without the other).
if(NOT TARGET cuckoo_redis_dump)
  add_library(cuckoo_redis_dump STATIC ${CMAKE_CURRENT_LIST_DIR}/cf_redis_dump.c)
  target_include_directories(cuckoo_redis_dump PUBLIC ${CMAKE_CURRENT_LIST_DIR})
  # Linked into cuckoo.so too: position-independent, symbols kept private.
  set_target_properties(cuckoo_redis_dump PROPERTIES
    POSITION_INDEPENDENT_CODE ON C_VISIBILITY_PRESET hidden)
endif()
