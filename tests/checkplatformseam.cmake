# The platform seam's build check (cmake/CheckPlatformSeam.cmake) on a small tree written here: one
# offence of each kind must fail it, each named with its file and line, and what the seam allows
# (POSIX headers in tests, a listed Linux-only test, core/platform/ itself, a comment, a macro that
# only contains "LINUX") must not be named. Then the tree without the offences must pass.
# The tree is written at test time, not kept under tests/: the real check would find its offences.
# Usage: cmake -DCHECK=<CheckPlatformSeam.cmake> -DWORK_DIR=<scratch dir> -P checkplatformseam.cmake
cmake_minimum_required(VERSION 3.25)
if(NOT CHECK OR NOT WORK_DIR)
    message(FATAL_ERROR "CHECK and WORK_DIR must be set")
endif()
set(tree ${WORK_DIR}/tree)
file(REMOVE_RECURSE ${WORK_DIR})

# Allowed everywhere below.
file(WRITE ${tree}/core/platform/linux/epollset.cpp "#include <sys/epoll.h>\n#ifdef __linux__\n#endif\n")
file(WRITE ${tree}/core/config/clean.h
     "#pragma once\n#ifndef TB_LINUX_H\n// #include <unistd.h>\n#include \"platform/socketio.h\"\n#include <cstdio>\n#endif\n")
file(WRITE ${tree}/tests/tst_posix.cpp "#include <unistd.h>\n#include <sys/resource.h>\n")
file(WRITE ${tree}/tests/tst_linuxonly.cpp
     "#include <sys/epoll.h>\n#include \"platform/linux/epollset.h\"\n")
function(run_check out_result out_text)
    execute_process(
        COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${tree} "-DLINUX_ONLY_SOURCES=tests/tst_linuxonly.cpp|linux-backend|a test of the Linux backend" -P ${CHECK}
        RESULT_VARIABLE result OUTPUT_VARIABLE text ERROR_VARIABLE text)
    set(${out_result} ${result} PARENT_SCOPE)
    set(${out_text} "${text}" PARENT_SCOPE)
endfunction()

run_check(result text)
if(NOT result EQUAL 0)
    message(FATAL_ERROR "The check fails a tree with no offence:\n${text}")
endif()

# One offence of each kind, each after a line CMake's lists would mangle (brackets, a semicolon),
# so the line numbers are checked too.
file(WRITE ${tree}/core/net/linuxonly.cpp "int a[2]; // [\n#include <sys/epoll.h>\n")
file(WRITE ${tree}/ui/platformmacro.cpp "int b;\nint c;\n#  if defined(__APPLE__) && X\n#endif\n")
file(WRITE ${tree}/tests/tst_private.cpp "#include \"platform/posix/socketaddress.h\"\n")
file(WRITE ${tree}/app/cli/osheader.cpp "#include <QString>\n#include <Windows.h>\n")
file(APPEND ${tree}/tests/tst_linuxonly.cpp "#ifdef Q_OS_LINUX\n#endif\n")
file(WRITE ${tree}/bench/bench_private.cpp "#include \"platform/socketaddress.h\"\n")
set(expected
    "core/net/linuxonly.cpp:2: (a)"
    "ui/platformmacro.cpp:3: (b)"
    "tests/tst_private.cpp:1: (c)"
    "bench/bench_private.cpp:1: (c)"
    "app/cli/osheader.cpp:2: (d)"
    "tests/tst_linuxonly.cpp:3: (b)")
set(allowed core/platform/linux/epollset.cpp core/config/clean.h tests/tst_posix.cpp "tests/tst_linuxonly.cpp:1" "tests/tst_linuxonly.cpp:2")

run_check(result text)
set(failures "")
if(result EQUAL 0)
    list(APPEND failures "the check passed a tree with an offence of each kind")
endif()
foreach(offence IN LISTS expected)
    string(FIND "${text}" "${offence}" at)
    if(at EQUAL -1)
        list(APPEND failures "not named: ${offence}")
    endif()
endforeach()
foreach(file IN LISTS allowed)
    string(FIND "${text}" "${file}" at)
    if(NOT at EQUAL -1)
        list(APPEND failures "named though allowed: ${file}")
    endif()
endforeach()

# A listed file that no longer exists is an offence too.
file(REMOVE ${tree}/tests/tst_linuxonly.cpp)
run_check(result stale_text)
string(FIND "${stale_text}" "tests/tst_linuxonly.cpp does not exist" at)
if(at EQUAL -1)
    list(APPEND failures "a stale Linux-only entry is not named")
endif()

if(failures)
    list(JOIN failures "\n  " failures_text)
    message(FATAL_ERROR "CheckPlatformSeam.cmake:\n  ${failures_text}\nIts output:\n${text}")
endif()
list(LENGTH expected count)
message(STATUS "CheckPlatformSeam.cmake named all ${count} offences, nothing allowed, and a stale Linux-only entry")
