# `cpack` from a build tree packages the installed programs: on Linux a .deb and a .tar.gz; on macOS
# a disk image (.dmg) holding tokenbench.app, the CLI inside it; on Windows a .zip and, when NSIS's
# makensis is found, an installer. On macOS and Windows the Qt libraries and plugins the GUI needs
# are copied in by Qt's own deployment (Qt 6.3 and later: qt_generate_deploy_app_script, or on macOS
# qt_deploy_runtime_dependencies, which run windeployqt or macdeployqt), so the package runs on a
# machine without Qt.
set(CPACK_PACKAGE_NAME "tokenbench")
set(CPACK_PACKAGE_VENDOR "TokenBench")
set(CPACK_PACKAGE_CONTACT "TokenBench developers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
if(APPLE)
    set(CPACK_GENERATOR "DragNDrop")
    set(CPACK_DMG_VOLUME_NAME "TokenBench")
elseif(WIN32)
    set(CPACK_GENERATOR "ZIP")
    find_program(TB_MAKENSIS makensis)
    if(TB_MAKENSIS)
        list(APPEND CPACK_GENERATOR "NSIS")
        set(CPACK_PACKAGE_INSTALL_DIRECTORY "TokenBench")
        set(CPACK_NSIS_DISPLAY_NAME "TokenBench")
        set(CPACK_NSIS_PACKAGE_NAME "TokenBench")
        # A Start menu entry for the GUI (bin/tokenbench.exe).
        set(CPACK_PACKAGE_EXECUTABLES "tokenbench;TokenBench")
    endif()
else()
    set(CPACK_GENERATOR "TGZ;DEB")
    set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
    set(CPACK_DEBIAN_PACKAGE_SECTION "devel")
    install(FILES ${PROJECT_SOURCE_DIR}/packaging/tokenbench.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
    install(FILES ${PROJECT_SOURCE_DIR}/resources/icons/tokenbench.svg
            DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
endif()

if((APPLE OR WIN32) AND TARGET tokenbench)
    # Runs after the programs' own install rules (app/CMakeLists.txt).
    if(APPLE)
        # macdeployqt on the bundle, told (-executable) that the CLI inside it uses the frameworks
        # and libraries it deploys too (Homebrew's libnghttp2 among them): what
        # qt_generate_deploy_app_script does, plus the second program.
        set(tb_deploy_script ${CMAKE_CURRENT_BINARY_DIR}/deploy_tokenbench.cmake)
        file(GENERATE OUTPUT ${tb_deploy_script} CONTENT "include(\"${QT_DEPLOY_SUPPORT}\")
qt_deploy_runtime_dependencies(
    EXECUTABLE \"$<TARGET_FILE_NAME:tokenbench>.app\"
    ADDITIONAL_EXECUTABLES \"$<TARGET_FILE_NAME:tokenbench>.app/Contents/MacOS/$<TARGET_FILE_NAME:tokenbench-cli>\")
")
    elseif(Qt6_VERSION VERSION_LESS 6.5) # Qt 6.5 renamed the option naming the script's variable
        qt_generate_deploy_app_script(TARGET tokenbench FILENAME_VARIABLE tb_deploy_script)
    else()
        qt_generate_deploy_app_script(TARGET tokenbench OUTPUT_SCRIPT tb_deploy_script NO_TRANSLATIONS)
    endif()
    install(SCRIPT ${tb_deploy_script})
    if(APPLE)
        # Installing rewrote the programs' rpaths and the deployment the libraries' install names,
        # which voids the linker's ad-hoc signatures, and Apple Silicon runs no unsigned code: sign
        # the bundle again, ad hoc (not notarized, so Gatekeeper asks once: right-click, Open).
        install(CODE "execute_process(COMMAND codesign --force --deep --sign - \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/tokenbench.app\" COMMAND_ERROR_IS_FATAL ANY)")
    endif()
endif()
include(CPack)
