# Tests and bench programs that can only be built on Linux, each with what it needs and why:
# "<path from the source dir>|<needs>|<reason>", where <needs> is
#   linux-backend  it exercises the Linux backend's own code (core/platform/linux/): built only when
#                  TB_IO_BACKEND is linux;
#   linux          it uses Linux itself (epoll, SO_TIMESTAMPING, glibc) as its measuring apparatus,
#                  not the backend: built on Linux with either backend, so it measures both.
# cmake/CheckPlatformSeam.cmake lets these (and only these) include Linux-only headers and the Linux
# backend's own headers; tests/CMakeLists.txt and bench/CMakeLists.txt build them as <needs> says.
# The product (core/, ui/, app/) has no entry.
set(tb_linux_only_sources
    "tests/tst_epolleventdispatcher.cpp|linux-backend|it tests the Linux backend's epoll event dispatcher"
    "tests/tst_uringreceiver.cpp|linux-backend|it tests the Linux backend's io_uring receive path (UringReceiver)"
    "bench/bench_rxstamp.cpp|linux|it measures which kernel receive stamp (SO_TIMESTAMPING, linux/net_tstamp.h) a TCP read carries"
    "bench/bench_sim.cpp|linux|it loads the simulator from its own epoll client, so that the figures are the server's cost"
    "bench/bench_engine.cpp|linux|its memory figure is glibc's heap statistics (mallinfo2, malloc.h)"
    "bench/bench_readfloor.cpp|linux-backend|it reads streams through the Linux backend's own receive path (UringReceiver) with nothing above it")

# tb_linux_only(<path> <out_needs> <out_reason>): what `path` needs ("linux-backend" or "linux") and
# why, or two empty strings when it is not listed.
function(tb_linux_only path out_needs out_reason)
    set(needs "")
    set(reason "")
    foreach(entry IN LISTS tb_linux_only_sources)
        if(entry MATCHES "^([^|]+)\\|([^|]+)\\|(.*)$" AND CMAKE_MATCH_1 STREQUAL path)
            set(needs "${CMAKE_MATCH_2}")
            set(reason "${CMAKE_MATCH_3}")
            break()
        endif()
    endforeach()
    set(${out_needs} "${needs}" PARENT_SCOPE)
    set(${out_reason} "${reason}" PARENT_SCOPE)
endfunction()

# tb_linux_only_unavailable(<path> <out>): why `path` cannot be built in this configuration (the
# system or TB_IO_BACKEND), or an empty string.
function(tb_linux_only_unavailable path out)
    tb_linux_only("${path}" needs reason)
    set(why "")
    if(needs STREQUAL "linux-backend" AND NOT TB_IO_BACKEND STREQUAL "linux")
        set(why "the Linux backend only (TB_IO_BACKEND=linux): ${reason}")
    elseif(needs STREQUAL "linux" AND NOT CMAKE_SYSTEM_NAME STREQUAL "Linux")
        set(why "Linux only: ${reason}")
    endif()
    set(${out} "${why}" PARENT_SCOPE)
endfunction()
