# Tests and bench programs that exist to exercise or measure the Linux backend itself, each with the
# reason it cannot run elsewhere: "<path from the source dir>|<reason>". cmake/CheckPlatformSeam.cmake
# lets these (and only these) include Linux-only headers and the Linux backend's own headers;
# tests/CMakeLists.txt and bench/CMakeLists.txt build them only when TB_IO_BACKEND is linux, so the
# portable build on Linux compiles what macOS would. The product (core/, ui/, app/) has no entry.
set(tb_linux_only_sources
    "tests/tst_epolleventdispatcher.cpp|it tests the Linux backend's epoll event dispatcher and poller"
    "bench/bench_rxstamp.cpp|it measures which kernel receive stamp (SO_TIMESTAMPING, linux/net_tstamp.h) a TCP read carries"
    "bench/bench_sim.cpp|it loads the simulator from its own epoll client, so that the figures are the server's cost"
    "bench/bench_engine.cpp|its memory figure is glibc's heap statistics (mallinfo2, malloc.h)")

# tb_linux_only_reason(<path> <out>): the reason `path` is Linux-only, or an empty string.
function(tb_linux_only_reason path out)
    set(reason "")
    foreach(entry IN LISTS tb_linux_only_sources)
        string(FIND "${entry}" "|" bar)
        string(SUBSTRING "${entry}" 0 ${bar} listed)
        if(listed STREQUAL path)
            math(EXPR bar "${bar} + 1")
            string(SUBSTRING "${entry}" ${bar} -1 reason)
            break()
        endif()
    endforeach()
    set(${out} "${reason}" PARENT_SCOPE)
endfunction()
