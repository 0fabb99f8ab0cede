# Fails when a file outside core/platform/ reaches past the platform seam (docs/ARCHITECTURE.md,
# "Platform seam"), naming the file, the line and the rule:
#   (a) it includes a Linux-only header (epoll, timerfd, linux/*, glibc's malloc.h, …);
#   (b) it tests a platform macro in #if/#ifdef/#ifndef/#elif (__linux__, _WIN32, __APPLE__, Q_OS_*, …);
#   (c) it includes a backend's or OS layer's private header ("platform/linux/…", "platform/posix/…",
#       "platform/socketaddress.h", …);
#   (d) it is part of the product (core/, ui/, app/) and includes any OS header at all.
# The product has no exceptions. Tests and bench programs that can only be built on Linux are listed
# in cmake/LinuxOnlySources.cmake, each with what it needs and why: they are exempt from (a) and may
# include the Linux backend's own headers; tests/ and bench/ build those that exercise the Linux
# backend only when TB_IO_BACKEND is linux, and the others only on Linux.
# Tests and bench programs may include POSIX headers (they are built only on UNIX); the neutral seam
# is there so that the product need not.
# Usage: cmake -DSOURCE_DIR=<project source dir> [-DLINUX_ONLY_SOURCES=<entries>] -P CheckPlatformSeam.cmake
# (LINUX_ONLY_SOURCES replaces cmake/LinuxOnlySources.cmake's list, for the check's own test)
cmake_minimum_required(VERSION 3.25)
if(NOT SOURCE_DIR)
    message(FATAL_ERROR "SOURCE_DIR not set")
endif()
include(${CMAKE_CURRENT_LIST_DIR}/LinuxOnlySources.cmake)
if(DEFINED LINUX_ONLY_SOURCES)
    set(tb_linux_only_sources "${LINUX_ONLY_SOURCES}")
endif()

set(tb_product_trees core ui app)
set(tb_other_trees tests bench fuzz)
# Headers only Linux (or glibc) has: macOS and Windows have none of them.
set(tb_linux_only_header
    "^(sys/(epoll|eventfd|timerfd|signalfd|prctl|sendfile|inotify|sysinfo)\\.h|linux/.+|asm/.+|malloc\\.h)$")
# Any OS header, POSIX's or Windows' (compared in lower case: Windows' file names are not).
set(tb_os_header
    "^(unistd|fcntl|poll|netdb|dlfcn|pthread|termios|windows|winsock2|ws2tcpip|io)\\.h$|^(sys|netinet|arpa)/.+")
set(tb_private_platform_header "(^|/)platform/((linux|portable|posix|windows)/.+|socketaddress\\.h)$")
set(tb_linux_backend_header "(^|/)platform/linux/.+")
# A whole identifier, not part of a longer one (TB_LINUX_H is not "linux").
set(tb_platform_macro
    "(^|[^A-Za-z0-9_])(__linux__|__linux|linux|_WIN32|_WIN64|WIN32|__APPLE__|__MACH__|__unix__|__unix|__FreeBSD__|Q_OS_[A-Za-z0-9_]+)([^A-Za-z0-9_]|$)")
set(tb_directive "^[ \t]*#[ \t]*(include|if|ifdef|ifndef|elif|elifdef|elifndef)([^A-Za-z0-9_].*|)$")

# What is wrong with one preprocessor line of `file` (empty when nothing is).
function(tb_seam_offence product linux_only line out)
    set(why "")
    string(REGEX REPLACE "//.*$" "" line "${line}")
    if(line MATCHES "^[ \t]*#[ \t]*include[ \t]*[<\"]([^>\"]+)[>\"]")
        set(header "${CMAKE_MATCH_1}")
        string(TOLOWER "${header}" lower)
        if(header MATCHES "${tb_private_platform_header}"
           AND NOT (linux_only AND header MATCHES "${tb_linux_backend_header}"))
            set(why "(c) includes a platform backend's private header <${header}>: use core/platform's neutral headers")
        elseif(header MATCHES "${tb_linux_only_header}" AND NOT linux_only)
            set(why "(a) includes the Linux-only header <${header}>")
        elseif(product AND lower MATCHES "${tb_os_header}")
            set(why "(d) includes the OS header <${header}>: only core/platform/ may")
        endif()
    elseif(line MATCHES "^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|elifdef|elifndef)[^A-Za-z0-9_](.*)$")
        if(CMAKE_MATCH_2 MATCHES "${tb_platform_macro}")
            set(why "(b) tests the platform macro ${CMAKE_MATCH_2}: only core/platform/ may")
        endif()
    endif()
    set(${out} "${why}" PARENT_SCOPE)
endfunction()

set(bad "")
foreach(tree IN LISTS tb_product_trees tb_other_trees)
    if(NOT IS_DIRECTORY "${SOURCE_DIR}/${tree}")
        continue()
    endif()
    set(product OFF)
    if(tree IN_LIST tb_product_trees)
        set(product ON)
    endif()
    file(GLOB_RECURSE files RELATIVE "${SOURCE_DIR}"
        "${SOURCE_DIR}/${tree}/*.h" "${SOURCE_DIR}/${tree}/*.hpp" "${SOURCE_DIR}/${tree}/*.c"
        "${SOURCE_DIR}/${tree}/*.cc" "${SOURCE_DIR}/${tree}/*.cpp" "${SOURCE_DIR}/${tree}/*.mm")
    foreach(file IN LISTS files)
        if(file MATCHES "^core/platform/")
            continue()
        endif()
        tb_linux_only("${file}" needs reason)
        set(linux_only OFF)
        if(needs)
            set(linux_only ON)
        endif()
        # Fast path: the preprocessor lines only; a file with an offence is then read line by line
        # for the line numbers.
        file(STRINGS "${SOURCE_DIR}/${file}" directives REGEX "${tb_directive}")
        set(offends OFF)
        foreach(line IN LISTS directives)
            tb_seam_offence(${product} ${linux_only} "${line}" why)
            if(why)
                set(offends ON)
                break()
            endif()
        endforeach()
        if(NOT offends)
            continue()
        endif()
        file(READ "${SOURCE_DIR}/${file}" text)
        # One list element a line: CMake lists split at ';' and treat brackets specially.
        string(REPLACE ";" "<semicolon>" text "${text}")
        string(REPLACE "[" "<bracket>" text "${text}")
        string(REPLACE "]" "<closing-bracket>" text "${text}")
        string(REPLACE "\n" ";" lines "${text}")
        set(number 0)
        foreach(line IN LISTS lines)
            math(EXPR number "${number} + 1")
            if(line MATCHES "${tb_directive}")
                tb_seam_offence(${product} ${linux_only} "${line}" why)
                if(why)
                    list(APPEND bad "${file}:${number}: ${why}")
                endif()
            endif()
        endforeach()
    endforeach()
endforeach()

# A stale entry would let a file that no longer exists keep an exemption nobody reviews.
foreach(entry IN LISTS tb_linux_only_sources)
    string(REGEX REPLACE "\\|.*$" "" path "${entry}")
    if(NOT entry MATCHES "^[^|]+\\|(linux|linux-backend)\\|.+$")
        list(APPEND bad "cmake/LinuxOnlySources.cmake: \"${entry}\" is not <path>|linux or linux-backend|<reason>")
    elseif(NOT EXISTS "${SOURCE_DIR}/${path}")
        list(APPEND bad "cmake/LinuxOnlySources.cmake: ${path} does not exist")
    endif()
endforeach()

if(bad)
    list(JOIN bad "\n  " bad_text)
    message(FATAL_ERROR "A file reaches past the platform seam (docs/ARCHITECTURE.md, \"Platform seam\"):\n  ${bad_text}")
endif()
