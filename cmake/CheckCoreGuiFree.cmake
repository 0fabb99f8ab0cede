# Fails when any file in core/ includes a QtGui, QtWidgets or QtCharts header.
# Usage: cmake -DCORE_DIR=<dir> -P CheckCoreGuiFree.cmake
if(NOT CORE_DIR)
    message(FATAL_ERROR "CORE_DIR not set")
endif()
file(GLOB_RECURSE files "${CORE_DIR}/*.h" "${CORE_DIR}/*.cpp" "${CORE_DIR}/*.hpp")
set(gui_headers
    "Qt(Gui|Widgets|Charts|Svg|PrintSupport|OpenGL)/"
    "Q(Widget|Application|GuiApplication|MainWindow|Painter|Pixmap|Image|Color|Font|Chart|ChartView|Dialog|PushButton|Label|Icon|Clipboard)>")
set(bad "")
foreach(f IN LISTS files)
    file(STRINGS "${f}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"]")
    foreach(line IN LISTS lines)
        foreach(pattern IN LISTS gui_headers)
            if(line MATCHES "${pattern}")
                list(APPEND bad "${f}: ${line}")
            endif()
        endforeach()
    endforeach()
endforeach()
if(bad)
    list(JOIN bad "\n  " bad_text)
    message(FATAL_ERROR "core/ must not use QtGui, QtWidgets or QtCharts:\n  ${bad_text}")
endif()
