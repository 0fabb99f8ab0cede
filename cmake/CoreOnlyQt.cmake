# tb_require_core_only_qt(<target> <source dir>): the core library must stay GUI-free, so the GUI, the
# CLI and the tests can all link it. A configure-time check of what the target links, and a
# build-time scan (CheckCoreGuiFree.cmake) of what its sources include, so a new #include <QWidget>
# fails the build, not just review.
function(tb_require_core_only_qt target source_dir)
    get_target_property(libs ${target} LINK_LIBRARIES)
    foreach(lib IN LISTS libs)
        if(lib MATCHES "Qt6::(Gui|Widgets|Charts|Svg|PrintSupport|OpenGL)")
            message(FATAL_ERROR "${target} must not link ${lib}")
        endif()
    endforeach()
    add_custom_target(check_core_gui_free ALL
        COMMAND ${CMAKE_COMMAND} -DCORE_DIR=${source_dir}
                -P ${PROJECT_SOURCE_DIR}/cmake/CheckCoreGuiFree.cmake
        COMMENT "Checking that ${source_dir} includes no GUI headers"
        VERBATIM)
    add_dependencies(${target} check_core_gui_free)
endfunction()
