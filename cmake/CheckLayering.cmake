# Fails when a room includes a room above it, so the data path never runs back
# (docs/ARCHITECTURE.md, "Layering"). A file may include its own room and rooms of a lower rank;
# rooms of one rank are independent of each other (the simulator never includes the client).
# Usage: cmake -DSOURCE_DIR=<project source dir> -P CheckLayering.cmake
if(NOT SOURCE_DIR)
    message(FATAL_ERROR "SOURCE_DIR not set")
endif()

# <room>=<rank>. core/ rooms, then ui/ rooms (all above the core; "ui" is the ui/ root).
set(tb_rooms
    platform=0
    config=1 threads=1
    formats=2 tokenize=2
    metrics=3
    net=4
    api=5
    workload=6
    client=7 sim=7
    observe=8
    results=9
    analysis=10
    run=11
    ui/models=12
    ui/widgets=13
    ui/charts=14 ui/editors=14
    ui/views=15
    ui/compare=16
    ui=17)
foreach(entry IN LISTS tb_rooms)
    string(REPLACE "=" ";" pair "${entry}")
    list(GET pair 0 room)
    list(GET pair 1 rank)
    set(rank_${room} ${rank})
endforeach()

# The room an include names, seen from a file under `tree` ("core" or "ui"); empty when it names
# no room (a system or generated header).
function(tb_included_room tree include out)
    set(room "")
    if(include MATCHES "^([a-z]+)/[^/]+$")
        set(first ${CMAKE_MATCH_1})
        if(tree STREQUAL "ui" AND EXISTS "${SOURCE_DIR}/ui/${include}")
            set(room "ui/${first}")
        elseif(EXISTS "${SOURCE_DIR}/core/${include}" AND DEFINED rank_${first})
            set(room ${first})
        endif()
    elseif(tree STREQUAL "ui" AND EXISTS "${SOURCE_DIR}/ui/${include}")
        set(room "ui")
    endif()
    set(${out} "${room}" PARENT_SCOPE)
endfunction()

set(bad "")
foreach(tree core ui)
    file(GLOB_RECURSE files RELATIVE "${SOURCE_DIR}/${tree}" "${SOURCE_DIR}/${tree}/*.h" "${SOURCE_DIR}/${tree}/*.cpp")
    foreach(file IN LISTS files)
        if(file MATCHES "^([a-z]+)/")
            set(room ${CMAKE_MATCH_1})
            if(tree STREQUAL "ui")
                set(room "ui/${room}")
            endif()
        elseif(tree STREQUAL "ui")
            set(room "ui")
        else()
            continue() # core/version.cpp: the library's own, in no room
        endif()
        if(NOT DEFINED rank_${room})
            list(APPEND bad "${tree}/${file}: the room ${room} has no rank in cmake/CheckLayering.cmake")
            continue()
        endif()
        file(STRINGS "${SOURCE_DIR}/${tree}/${file}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
        foreach(line IN LISTS lines)
            string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\".*" "\\1" include "${line}")
            tb_included_room(${tree} "${include}" target)
            if(target STREQUAL "" OR target STREQUAL room)
                continue()
            endif()
            if(NOT rank_${target} LESS rank_${room})
                list(APPEND bad "${tree}/${file} (${room}, rank ${rank_${room}}) includes \"${include}\" (${target}, rank ${rank_${target}})")
            endif()
        endforeach()
    endforeach()
endforeach()
if(bad)
    list(JOIN bad "\n  " bad_text)
    message(FATAL_ERROR "An include runs up the layers:\n  ${bad_text}")
endif()
