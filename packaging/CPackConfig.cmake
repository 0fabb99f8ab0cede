# `cpack` from a build tree makes a .deb and a .tar.gz of the installed binaries.
set(CPACK_PACKAGE_NAME "tokenbench")
set(CPACK_PACKAGE_VENDOR "TokenBench")
set(CPACK_PACKAGE_CONTACT "TokenBench developers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_GENERATOR "TGZ;DEB")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SECTION "devel")
install(FILES ${PROJECT_SOURCE_DIR}/packaging/tokenbench.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
install(FILES ${PROJECT_SOURCE_DIR}/resources/icons/tokenbench.svg
        DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
include(CPack)
